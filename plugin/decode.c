/* TEMPORARY STUB */
#include "decode.h"
