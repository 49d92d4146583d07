# STRIDE_PORTABLE: tools that run on a GPU machine with no MLIR or LLVM
# installed (scripts/build-portable.sh). MLIR and LLVM are linked from their
# static archives instead of libLLVM.so, libstdc++ and libgcc statically,
# and fmt header-only. NVRTC and libcuda are opened at run time as in every
# build; libzip (Debian ships no static archive) stays shared and the script
# copies it, with what it needs beyond glibc, next to the binaries.
#
# Included after find_package(MLIR): LLVMConfig.cmake sets
# LLVM_LINK_LLVM_DYLIB, and MLIR's exported targets name the "LLVM" dylib
# target, so both are rewritten here to LLVM's static component libraries.

set(LLVM_LINK_LLVM_DYLIB OFF)

# The LLVM components MLIR's libraries and Stride use (MLIR needs Support
# and Demangle; the importer's JSON and the compiler's TargetParser-free
# pipeline need no more).
llvm_map_components_to_libnames(STRIDE_PORTABLE_LLVM_LIBS Support Demangle)

# LLVMSupport's exported dependencies name shared libraries (libz3, zstd);
# only zlib is used by what Stride links, from its static archive.
find_library(STRIDE_STATIC_ZLIB NAMES libz.a REQUIRED)
set_target_properties(LLVMSupport PROPERTIES
  INTERFACE_LINK_LIBRARIES "rt;dl;m;${STRIDE_STATIC_ZLIB};LLVMDemangle")

# Every imported MLIR target that links "LLVM" links the components instead.
function(stride_unlink_llvm_dylib)
  get_directory_property(imported IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      continue()
    endif()
    get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT links)
      continue()
    endif()
    set(rewritten "")
    foreach(link IN LISTS links)
      if(link STREQUAL "LLVM")
        list(APPEND rewritten ${STRIDE_PORTABLE_LLVM_LIBS})
      elseif(link STREQUAL "$<LINK_ONLY:LLVM>")
        foreach(lib IN LISTS STRIDE_PORTABLE_LLVM_LIBS)
          list(APPEND rewritten "$<LINK_ONLY:${lib}>")
        endforeach()
      else()
        list(APPEND rewritten "${link}")
      endif()
    endforeach()
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
  endforeach()
endfunction()
stride_unlink_llvm_dylib()

# The binaries find the libraries build-portable.sh copies next to them
# (bin/../lib) and nothing else (add_llvm_executable would add LLVM's own
# folder); DT_RPATH, not RUNPATH, so that it also serves libzip's own
# dependencies.
set(CMAKE_BUILD_RPATH "\$ORIGIN/../lib")
add_link_options(-static-libstdc++ -static-libgcc -Wl,--as-needed
                 -Wl,--disable-new-dtags)
