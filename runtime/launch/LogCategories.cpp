// The category of `bxisim run`, so that `--log=bxisim_runtime.thres:debug` turns on only its messages.

#include <xbt/log.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim);
XBT_LOG_NEW_SUBCATEGORY(bxisim_runtime, bxisim, "bxisim run: launching ranks, their output and their end");
