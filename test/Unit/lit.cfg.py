# -*- Python -*-
# Runs TGC's GoogleTest unit tests (unittests/) through lit, as CIRCT's
# test/Unit does, so that `check-tgc` runs them with the FileCheck tests.

import os

import lit.formats

config.name = "TGC-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.tgc_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
