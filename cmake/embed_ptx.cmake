# cmake -DIN=kernels.ptx -DOUT=kernels_ptx.c -P embed_ptx.cmake: the PTX text as the C string
# redist__kernels_ptx (src/device/cuda.c loads it with cuModuleLoadData).
file(READ "${IN}" _ptx)
string(REPLACE "\\" "\\\\" _ptx "${_ptx}")
string(REPLACE "\"" "\\\"" _ptx "${_ptx}")
string(REPLACE "\n" "\\n\"\n\"" _ptx "${_ptx}")
file(WRITE "${OUT}" "/* Generated from src/device/kernels.cu by cmake/embed_ptx.cmake. */\n"
     "const char redist__kernels_ptx[] =\n\"${_ptx}\";\n")
