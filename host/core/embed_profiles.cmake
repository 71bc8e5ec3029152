# Generates a C file holding the text of each profiles/NAME.ini, so the host
# works with no profile file installed.  Run with -DOUT=... -DIN="a;b".
set(body "/* Generated from profiles/NAME.ini; do not edit. */\n#include <stddef.h>\n#include \"profile.h\"\n\nconst profile_text profile_embedded[] = {\n")
foreach(f IN LISTS IN)
  get_filename_component(stem "${f}" NAME_WE)
  file(READ "${f}" text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
  string(APPEND body "  {\"${stem}\",\n    \"${text}\"},\n")
endforeach()
string(APPEND body "  {NULL, NULL}\n};\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
