# Third-party libraries, all from Debian packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED)      # libonnx-dev: targets onnx, onnx_proto (ONNX_NAMESPACE=onnx)
find_package(CLI11 REQUIRED)     # libcli11-dev
find_package(spdlog REQUIRED)    # libspdlog-dev
find_package(dnnl REQUIRED)      # libdnnl-dev (oneDNN), the CPU backend's conv and GEMM
find_package(OpenSSL REQUIRED)   # libssl-dev: SHA-256 of the model recorded in plans
if(IOS_BUILD_TESTS)
  find_package(GTest REQUIRED)   # libgtest-dev
endif()
find_package(Python3 COMPONENTS Interpreter REQUIRED)
