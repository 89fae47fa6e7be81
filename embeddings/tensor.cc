#include "embeddings/tensor.h"
