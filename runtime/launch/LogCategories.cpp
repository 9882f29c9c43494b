// The root of bxisim's log categories, so that `--log=bxisim.thres:debug` turns on every bxisim
// message and `--log=bxisim_runtime.thres:debug` only those of `bxisim run`.

#include <xbt/log.h>

XBT_LOG_NEW_CATEGORY(bxisim, "Messages of bxisim");
XBT_LOG_NEW_SUBCATEGORY(bxisim_runtime, bxisim, "bxisim run: launching ranks, their output and their end");
