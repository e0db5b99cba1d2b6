/* A test switch: $LS_TEST_HOLD=POINT stops a command at that point until a
 * signal ends it, so a test can interrupt it exactly there (a readiness
 * signal, not a guess at timing). The points: "write" (a partial file half
 * written, app/file/file-replace.c), "import" (a bundle's private copy
 * made and the store's transaction begun, app/store/import.c). At the point
 * the command prints "loadscope: holding at POINT: WHAT" on stderr and
 * waits, at most 10 minutes. Unset, nothing happens. */
#pragma once

void ls_test_hold (const char *point, const char *what);
