/* TEMPORARY STUB */
#include "output.h"
