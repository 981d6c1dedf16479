# gpumat: `make` builds and runs the demo, `make test` runs every test.
CC      ?= cc
CXX     ?= c++
PYTHON  ?= python3
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -pedantic
LDLIBS  := -ldl -lpthread -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

GEN     := $(addprefix include/gpumat/gen/,dtypes.h views.h pixel.h kernels.h)
HEADERS := include/gpumat.h $(wildcard include/gpumat/*.h include/gpumat/impl/*.h) $(GEN)

# The OpenCV oracle is built where OpenCV 4 is installed (.ci/run installs it).
OPENCV  := $(shell pkg-config --exists opencv4 2>/dev/null && echo yes)
ORACLE  := $(if $(OPENCV),$(BUILD)/oracle)
CV_INC  := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags opencv4 2>/dev/null))
CV_LIBS := $(shell pkg-config --libs opencv4 2>/dev/null)

TESTS   := $(addprefix $(BUILD)/,test_args test_cpu test_nvrtc test_gpu test_args_asan test_cpu_asan) $(ORACLE)

.PHONY: all demo gen test clean
all: demo

demo: $(BUILD)/demo
	./$(BUILD)/demo $(BUILD)

# Generated headers are committed; regenerate when the generator or a template changed.
$(GEN) &: gen/gen.py gen/model.py $(wildcard templates/*)
	$(PYTHON) gen/gen.py

gen:
	$(PYTHON) gen/gen.py

$(BUILD):
	mkdir -p $@

$(BUILD)/demo: examples/demo.c $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/test_%: tests/test_%.c tests/check.h $(HEADERS) | $(BUILD)
	$(CC) -std=c99 $(CFLAGS) $(WARN) -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/test_%_asan: tests/test_%.c tests/check.h $(HEADERS) | $(BUILD)
	$(CC) -std=c99 -O1 -g $(SAN) $(WARN) -Iinclude $< -o $@ $(LDLIBS)

$(BUILD)/oracle: tests/oracle.cpp tests/check.h $(HEADERS) | $(BUILD)
	$(CXX) -std=c++17 -O2 -g $(WARN) -Iinclude $(CV_INC) $< -o $@ $(CV_LIBS) $(LDLIBS)

test: $(TESTS) $(BUILD)/demo
	sh tests/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
