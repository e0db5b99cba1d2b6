/* Whether this process runs inside a container, and which kind: recorded
 * with the machine, so a run inside `docker run` on a GPU server is not
 * mistaken for one on the server itself. */
#pragma once

#include <stddef.h>

/* The container kind seen from root (normally "/"), given the values of
 * the environment variables `container` (set by systemd-nspawn, podman,
 * LXC) and KUBERNETES_SERVICE_HOST (NULL when unset): "docker", "podman",
 * "kubernetes", "lxc", "containerd", the `container` variable's own value
 * (letters, digits, '-' and '_' only, at most 31 bytes), or "none". Reads
 * ROOT/.dockerenv, ROOT/run/.containerenv and ROOT/proc/1/cgroup (its
 * first 64 KiB). */
void ls_container_detect_at (const char *root, const char *env_container, const char *env_kubernetes, char *out,
                             size_t len);

/* The same for this process: "/" and its own environment. */
void ls_container_detect (char *out, size_t len);
