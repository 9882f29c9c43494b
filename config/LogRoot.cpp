// The root of bxisim's log categories, in the lowest layer so that every module's category can be its child:
// `--log=bxisim.thres:debug` turns on every bxisim message (docs/running.md, "Log categories").

#include <xbt/log.h>

XBT_LOG_NEW_CATEGORY(bxisim, "Messages of bxisim");
