/* The font machinery's caches, freed at the end of a test program. */
#pragma once

/* Frees pango's default font map, cairo's static data and fontconfig's
 * caches, so that LeakSanitizer reports only leaks of ours. Call it last,
 * once no cairo or pango object is alive anywhere in the process:
 * cairo_debug_reset_static_data() asserts that, which is why the product
 * never calls it (a command's export could abort at exit). */
void ls_test_release_fonts (void);
