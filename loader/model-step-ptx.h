/* The model step's PTX text (loader/model-step.cu), embedded at build time
 * (loader/ptx-tool.py embed), for cuModuleLoadData. */
#pragma once

extern const char ls_model_step_ptx[];
