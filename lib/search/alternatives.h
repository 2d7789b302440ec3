/* The search over memory-time alternatives (alternatives.c): tessel_search
 * itself. No function of its own is called from elsewhere. */
#ifndef TESSEL_ALTERNATIVES_H
#define TESSEL_ALTERNATIVES_H
#endif
