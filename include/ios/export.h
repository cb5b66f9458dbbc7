// IOS_API marks what the shared library exports; everything else in it is hidden.
#pragma once

#if defined(_WIN32)
#define IOS_API
#else
#define IOS_API __attribute__((visibility("default")))
#endif
