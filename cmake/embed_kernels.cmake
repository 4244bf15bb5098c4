# cmake -DIN=kernels.fatbin -DOUT=kernels_image.c -P embed_kernels.cmake: the kernels' image
# (nvcc's fat binary) as the byte array redist__kernels_image (src/device/cuda.c loads it
# with cuModuleLoadData, which takes a fat binary as it takes PTX).
file(READ "${IN}" _hex HEX)
string(LENGTH "${_hex}" _len)
math(EXPR _bytes "${_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _hex "${_hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" _hex "${_hex}")
file(WRITE "${OUT}" "/* Generated from src/device/kernels.cu by cmake/embed_kernels.cmake. */\n"
     "#include <stddef.h>\n"
     "_Alignas(16) const unsigned char redist__kernels_image[] = {\n${_hex}};\n"
     "const size_t redist__kernels_image_bytes = ${_bytes};\n")
