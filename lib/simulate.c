/* Placeholder: being written. */
#include "tessel.h"
