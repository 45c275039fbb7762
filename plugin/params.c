/* TEMPORARY STUB */
#include "params.h"
