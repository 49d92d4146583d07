# -*- Python -*-
# lit runs the GoogleTest binaries (build/unittests/*Tests), one lit test per
# GoogleTest case.

import os

import lit.formats

config.name = "STRIDE-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.stride_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
