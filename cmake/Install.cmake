# cmake --install BUILD --prefix P: the public headers, libios.so, the CLIs and a CMake package,
# so that a program finds the library with find_package(ios CONFIG) and links ios::ios.
include(CMakePackageConfigHelpers)

install(TARGETS ios EXPORT iosTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ios DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS iosc iosrun iosplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(IOS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ios)
install(EXPORT iosTargets NAMESPACE ios:: DESTINATION ${IOS_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/iosConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/iosConfig.cmake
                              INSTALL_DESTINATION ${IOS_CMAKE_DIR})
# Before 1.0, a minor release may break callers: a program asks for the same 0.MINOR.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/iosConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/iosConfig.cmake ${PROJECT_BINARY_DIR}/iosConfigVersion.cmake
        DESTINATION ${IOS_CMAKE_DIR})

# The same package in the build tree, for find_package(ios CONFIG) with ios_DIR=BUILD: the Python
# package's tests (python/) build their extension against the library this build already made.
export(EXPORT iosTargets NAMESPACE ios:: FILE ${PROJECT_BINARY_DIR}/iosTargets.cmake)
