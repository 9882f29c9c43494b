// The NIC models' log categories, defined in the executable: the cycle model lives in a plugin loaded only
// when a run needs it, and `--log=bxisim_nic_cycle.thres:debug` is checked against the known categories before
// that (platforms/SimulatorSetup.cpp).

#include <xbt/log.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim);
XBT_LOG_NEW_SUBCATEGORY(bxisim_nic_message, bxisim, "The message-level NIC model");
XBT_LOG_NEW_SUBCATEGORY(bxisim_nic_cycle, bxisim, "The cycle-approximate (SystemC) NIC model");
