/* Windows only: text between the UTF-8 the rest of Loadscope speaks and the
 * UTF-16 of the wide Win32 calls. One pair for every *-win32.c, so that all
 * of them treat bad text the same way. */
#pragma once

#include <wchar.h>

/* UTF-8 -> newly allocated UTF-16 (free()). NULL when the text is not valid
 * UTF-8 (GetLastError: ERROR_NO_UNICODE_TRANSLATION) or memory ran out
 * (ERROR_NOT_ENOUGH_MEMORY): a path with bad bytes names no file, it is not
 * turned into another. */
wchar_t *ls_win_utf8_to_wide (const char *s);

/* UTF-16 -> newly allocated UTF-8 (free()); unpaired surrogates become
 * U+FFFD. NULL when memory ran out. */
char *ls_win_wide_to_utf8 (const wchar_t *w);
