# Installation and the CMake package (included by the top-level CMakeLists.txt): `cmake --install`
# puts the five static libraries, include/nnplan, the CLI, nnplanConfig.cmake with its version
# file and nnplan.pc under the prefix. examples/cmake-consumer builds against the result.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(nnplan_ir PROPERTIES EXPORT_NAME ir)
set_target_properties(nnplan_backend PROPERTIES EXPORT_NAME backend)
set_target_properties(nnplan PROPERTIES EXPORT_NAME nnplan)
set_target_properties(nnplan_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(nnplan_report PROPERTIES EXPORT_NAME report)
set_target_properties(nnplan_cli PROPERTIES EXPORT_NAME cli)
# The same names inside this build, for a project that adds nnplan with add_subdirectory.
add_library(nnplan::ir ALIAS nnplan_ir)
add_library(nnplan::backend ALIAS nnplan_backend)
add_library(nnplan::nnplan ALIAS nnplan)
add_library(nnplan::runtime ALIAS nnplan_runtime)
add_library(nnplan::report ALIAS nnplan_report)

install(TARGETS nnplan_ir nnplan_backend nnplan nnplan_runtime nnplan_report nnplan_cli
        EXPORT nnplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nnplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(NNPLAN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nnplan)
install(EXPORT nnplanTargets NAMESPACE nnplan:: DESTINATION ${NNPLAN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nnplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/nnplanConfig.cmake
                              INSTALL_DESTINATION ${NNPLAN_CMAKE_DIR})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/nnplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/nnplanConfig.cmake
              ${PROJECT_BINARY_DIR}/package/nnplanConfigVersion.cmake
        DESTINATION ${NNPLAN_CMAKE_DIR})

set(NNPLAN_PC_DEFINES "")
set(NNPLAN_PC_LIBS "")
if(NNPLAN_ONEDNN)
  set(NNPLAN_PC_DEFINES " -DNNPLAN_HAVE_ONEDNN")
  set(NNPLAN_PC_LIBS " -ldnnl -fopenmp")
endif()
file(RELATIVE_PATH NNPLAN_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" NNPLAN_PC_TO_PREFIX "${NNPLAN_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/nnplan.pc.in ${PROJECT_BINARY_DIR}/package/nnplan.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/nnplan.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The version, for tests/package/cmake_consumer_test.sh to compare with the installed nnplan.pc.
file(WRITE ${PROJECT_BINARY_DIR}/package/version.txt ${PROJECT_VERSION})
