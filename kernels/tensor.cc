#include "kernels/tensor.h"
