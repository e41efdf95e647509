# cmake --install: the q8 executable, the four libraries with their headers, and a package
# configuration so that another project's find_package(q8) gives q8::engine, q8::calib,
# q8::quant and q8::datasets (docs/api.md).
include(CMakePackageConfigHelpers)

install(TARGETS q8 RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS q8_engine q8_datasets q8_calib q8_quant q8_eval EXPORT q8Targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/q8)
foreach(dir engine datasets calib quant eval)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/q8/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "models" EXCLUDE PATTERN "samples" EXCLUDE)
endforeach()
# The texts headers share with the OpenCL kernels: e^x (engine/ops/exp_float.h), the
# requantization (engine/plan/requantize.h) and the constants (kernels/abi.h).
install(FILES ${PROJECT_SOURCE_DIR}/kernels/exp.cl ${PROJECT_SOURCE_DIR}/kernels/requantize.cl ${PROJECT_SOURCE_DIR}/kernels/abi.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/q8/kernels)

set(Q8_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/q8)
install(EXPORT q8Targets NAMESPACE q8:: DESTINATION ${Q8_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/q8Config.cmake.in ${CMAKE_BINARY_DIR}/q8Config.cmake
                              INSTALL_DESTINATION ${Q8_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/q8ConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/q8Config.cmake ${CMAKE_BINARY_DIR}/q8ConfigVersion.cmake DESTINATION ${Q8_CMAKE_DIR})
