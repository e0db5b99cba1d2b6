/* Arguments that are easy to quote wrongly on a Win32 command line. The
 * helper child checks it received exactly these. */
#pragma once

static const char *const ls_tricky_args[] = {
  "plain",
  "with space",
  "",
  "quote\"inside",
  "trailing backslash\\",
  "back\\\\slashes\\\"quote",
  "\\\\server\\share\\",
  "tab\there",
  "many   spaces  ",
  "ünïcødé",
  NULL,
};
