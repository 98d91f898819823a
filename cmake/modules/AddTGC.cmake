# Small wrappers in the spirit of CIRCT's AddCIRCT.cmake, so every CMakeLists
# stays short and every TGC library links MLIR the same way (the shared
# libMLIR.so when TGC_LINK_MLIR_DYLIB is on, static libraries otherwise).

# add_tgc_dialect(TgcOps tgc): ODS headers + dialect doc for one dialect.
function(add_tgc_dialect td_base namespace doc_name)
  add_mlir_dialect(${td_base} ${namespace})
  add_mlir_doc(${td_base} ${doc_name} Dialects/ -gen-dialect-doc
               -dialect=${namespace})
  add_dependencies(tgc-doc ${doc_name}DocGen)
endfunction()

# add_tgc_pass_doc(Passes TgcPasses): pass declarations doc.
function(add_tgc_pass_doc td_base doc_name)
  add_mlir_doc(${td_base} ${doc_name} Passes/ -gen-pass-doc)
  add_dependencies(tgc-doc ${doc_name}DocGen)
endfunction()

# add_tgc_library(name SRCS... [DEPENDS ...] [MLIR_LIBS ...] [LINK_LIBS ...]
#                 [LINK_COMPONENTS ...])
function(add_tgc_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;MLIR_LIBS;LINK_LIBS;LINK_COMPONENTS"
                        ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS}
    LINK_COMPONENTS ${ARG_LINK_COMPONENTS}
    LINK_LIBS PUBLIC ${ARG_LINK_LIBS})
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY TGC_ALL_LIBS ${name})
endfunction()

# add_tgc_tool(name SRCS... [LINK_LIBS ...] [MLIR_LIBS ...])
function(add_tgc_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS;MLIR_LIBS;DEPENDS" ${ARGN})
  add_llvm_executable(${name} ${ARG_UNPARSED_ARGUMENTS} DEPENDS ${ARG_DEPENDS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PRIVATE ${ARG_MLIR_LIBS})
  endif()
  llvm_update_compile_flags(${name})
endfunction()
