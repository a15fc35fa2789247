# Turns files into C arrays, so the installed `moreau` needs no files at run time.
# Run as a script:  cmake -DOUT_C=... -DOUT_H=... -DROOT=... -DFILES="a;b" -P embed_assets.cmake
# Each file becomes `const unsigned char mr_asset_<path>[]` (path relative to ROOT, with
# every character that is not a letter or digit replaced by '_'), followed by a NUL so a
# text asset is also a C string, and `const unsigned mr_asset_<path>_size` (bytes, without
# the NUL).
set(decls "")
set(defs "")
foreach(file IN LISTS FILES)
  file(RELATIVE_PATH rel "${ROOT}" "${file}")
  string(MAKE_C_IDENTIFIER "mr_asset_${rel}" sym)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" nhex)
  math(EXPR nbytes "${nhex} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n  " bytes "${bytes}")
  string(APPEND decls "extern const unsigned char ${sym}[]; /* ${rel} */\nextern const unsigned ${sym}_size;\n")
  string(APPEND defs "const unsigned char ${sym}[] = {\n  ${bytes}0x00};\nconst unsigned ${sym}_size = ${nbytes};\n\n")
endforeach()
file(WRITE "${OUT_H}.tmp" "/* Generated from assets/ by cmake/embed_assets.cmake: do not edit. */\n#ifndef MR_ASSETS_H\n#define MR_ASSETS_H\n\n${decls}\n#endif\n")
file(WRITE "${OUT_C}.tmp" "/* Generated from assets/ by cmake/embed_assets.cmake: do not edit. */\n#include \"mr_assets.h\"\n\n${defs}")
# Rewrite only on change, so an unchanged asset set does not rebuild the viewer.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT_H}.tmp" "${OUT_H}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT_C}.tmp" "${OUT_C}")
