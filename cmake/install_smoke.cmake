# ctest install_smoke: install redist into a scratch prefix, then build and run a user
# program against it twice: mpicc + pkg-config, and a CMake project using find_package.
# Arguments (-D): BUILD_DIR SOURCE_DIR WORK_DIR MPICC PKG_CONFIG GENERATOR C_COMPILER, and
# MPIF90 when the Fortran module was built (then a Fortran program is built both ways too).
# The find_package projects get MPI_C_COMPILER=MPICC, so that they find the MPI redist was
# built with (MPICH's mpicc.mpich beside the system's Open MPI mpicc).
cmake_minimum_required(VERSION 3.18)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_smoke: ${what} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "install_smoke: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(check_program_output what)
  if(NOT step_output MATCHES "redist_algorithm_count\\(\\) = [1-9]")
    message(FATAL_ERROR "install_smoke: ${what} printed unexpected output:\n${step_output}")
  endif()
  message(STATUS "${step_output}")
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run_step("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/redist.h lib/libredist.so lib/libredist.a lib/pkgconfig/redist.pc
          lib/cmake/redist/redistConfig.cmake lib/cmake/redist/redistConfigVersion.cmake
          lib/cmake/redist/redistTargets.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install_smoke: ${prefix}/${f} was not installed")
  endif()
endforeach()

# 1. mpicc app.c $(pkg-config --cflags --libs redist)
if(NOT MPICC OR NOT PKG_CONFIG)
  message(FATAL_ERROR "install_smoke: mpicc (${MPICC}) or pkg-config (${PKG_CONFIG}) missing")
endif()
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
run_step("pkg-config" "${PKG_CONFIG}" --cflags --libs redist)
string(STRIP "${step_output}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run_step("mpicc with pkg-config" "${MPICC}" "${SOURCE_DIR}/prog.c" ${pc_flags}
         -o "${WORK_DIR}/prog_pkgconfig")
run_step("run pkg-config program" "${WORK_DIR}/prog_pkgconfig")
check_program_output("pkg-config program")

# 2. find_package(redist) from a CMake project.
set(proj_build "${WORK_DIR}/cmake_project")
run_step("configure find_package project"
         "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/cmake_project" -B "${proj_build}"
         -G "${GENERATOR}" -DCMAKE_C_COMPILER=${C_COMPILER} -DMPI_C_COMPILER=${MPICC}
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run_step("build find_package project" "${CMAKE_COMMAND}" --build "${proj_build}")
run_step("run find_package program (shared)" "${proj_build}/prog")
check_program_output("find_package program")
run_step("run find_package program (static)" "${proj_build}/prog_static")
check_program_output("find_package program (static)")

# 3. The Fortran module: mpif90 + pkg-config redist_fortran, and find_package.
if(MPIF90)
  foreach(f include/redist.mod lib/libredist_fortran.so lib/pkgconfig/redist_fortran.pc)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "install_smoke: ${prefix}/${f} was not installed")
    endif()
  endforeach()
  run_step("pkg-config redist_fortran" "${PKG_CONFIG}" --cflags --libs redist_fortran)
  string(STRIP "${step_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run_step("mpif90 with pkg-config" "${MPIF90}" "${SOURCE_DIR}/prog.f90" ${pc_flags}
           -o "${WORK_DIR}/prog_fortran_pkgconfig")
  run_step("run Fortran pkg-config program" "${WORK_DIR}/prog_fortran_pkgconfig")
  if(NOT step_output MATCHES "rank 1 holds 4 x 7")
    message(FATAL_ERROR "install_smoke: the Fortran program printed:\n${step_output}")
  endif()
  set(fproj "${WORK_DIR}/cmake_project_fortran")
  run_step("configure find_package project with Fortran"
           "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/cmake_project" -B "${fproj}" -G "${GENERATOR}"
           -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_Fortran_COMPILER=${MPIF90} -DWITH_FORTRAN=ON
           -DMPI_C_COMPILER=${MPICC}
           -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
  run_step("build find_package project with Fortran" "${CMAKE_COMMAND}" --build "${fproj}")
  run_step("run find_package Fortran program" "${fproj}/prog_fortran")
  if(NOT step_output MATCHES "rank 1 holds 4 x 7")
    message(FATAL_ERROR "install_smoke: the Fortran program printed:\n${step_output}")
  endif()
endif()
