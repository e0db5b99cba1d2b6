"""Never builds a DataLoader: it waits (the runner's --timeout names it)."""
import time

import torch  # noqa: F401

if __name__ == "__main__":
    time.sleep(3600)
