/* PCRE2's 8-bit API for Swift. PCRE2 names its functions through macros that Swift cannot see,
   so Swift calls the `_8` names (pcre2_compile_8, pcre2_match_8, ...) directly. */
#ifndef LINKROUTER_CPCRE2_SHIM_H
#define LINKROUTER_CPCRE2_SHIM_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
