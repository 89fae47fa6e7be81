# tokvec set-up. `make demo` and `make test` each work on a fresh Debian 12 machine (they install what they need).
BUILD ?= build
JOBS ?= $(shell nproc)
SHARED ?= $(abspath ../shared)

# Debian packages the project needs (build, tests, PyTorch goldens, fuzzing, peers for benchmarks).
APT_PACKAGES = cmake g++ make pkg-config git \
  libicu-dev libabsl-dev libgtest-dev libgmock-dev libfmt-dev libopenblas-dev libopenblas0-pthread \
  nlohmann-json3-dev zlib1g-dev libdivsufsort-dev libcli11-dev libcpp-httplib-dev libbenchmark-dev clang-14 libclang-rt-14-dev \
  python3 python3-torch python3-numpy sentencepiece time bc \
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-venv python3-pip python3-setuptools python3-wheel
# Headless chromium: only for the `tokvec serve` viewer page test (scripts/serve_check.sh).
APT_PACKAGES += chromium
# Open MPI: `mpirun -np P tokvec train` (-DTOKVEC_MPI=ON) and its test (scripts/mpi_check.sh).
APT_PACKAGES += openmpi-bin libopenmpi-dev
# ccache: a second clone (CI, a worktree) reuses compiled objects; see CMakeLists.txt.
APT_PACKAGES += ccache

.PHONY: deps build test demo sanitize-test tsan-test fuzz conformance serve-check install-check clean

# Installs missing system packages (idempotent: does nothing when all are present).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then missing="$$missing nodejs npm"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "make deps: all packages present"; fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTOKVEC_SHARED_DIR=$(SHARED) -DTOKVEC_MPI=ON
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) --timeout 900

# The whole suite under AddressSanitizer + UBSan (build-asan/); `make tsan-test`: ThreadSanitizer on the
# concurrency tests (build-tsan/). Both run scripts/sanitize.sh.
sanitize-test: deps
	SHARED=$(SHARED) bash scripts/sanitize.sh address,undefined

tsan-test: deps
	SHARED=$(SHARED) bash scripts/sanitize.sh thread

# Every libFuzzer target for FUZZ_SECONDS each (clang, build-fuzz/).
fuzz: deps
	bash scripts/fuzz.sh $(or $(FUZZ_SECONDS),30)

# Builds only the tokvec binary (not the tests), with the same configuration as `build`.
demo: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTOKVEC_SHARED_DIR=$(SHARED) -DTOKVEC_MPI=ON
	cmake --build $(BUILD) -j$(JOBS) --target tokvec
	bash scripts/demo.sh $(BUILD)/tokvec

# Byte-level ids against tiktoken and Hugging Face (npm peers cached in ~/.cache/tokvec/npm); SKIP without ../shared or npm.
conformance: build
	TOKVEC_SHARED_DIR=$(SHARED) bash scripts/conformance.sh $(BUILD)/tokvec

# `tokvec serve` on 127.0.0.1: the openai@7 npm client (cached in ~/.cache/tokvec/npm-serve) against embed --lines,
# a 16 x 200 load test, disconnecting and slow clients, SIGTERM during load, the viewer page in headless chromium.
serve-check: build
	bash scripts/serve_check.sh $(BUILD)/tokvec

# cmake --install into a temporary prefix, examples/cpp built against it (CMake and pkg-config) and checked against
# the CLI, and `pip install ./python` into a venv offline (the module compiled in $(BUILD)): scripts/install_check.sh.
install-check: build
	TOKVEC_SHARED_DIR=$(SHARED) bash scripts/install_check.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
