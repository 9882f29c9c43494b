#include "S4bxiNames.hpp"

namespace bxisim::hw
{

const char* s4bxi_request_name(portals::OpKind operation)
{
  switch (operation) {
  case portals::OpKind::put:
    return "PUT";
  case portals::OpKind::get:
    return "GET";
  case portals::OpKind::atomic:
    return "ATOMIC";
  case portals::OpKind::fetch_atomic:
    return "FETCH_ATOMIC";
  case portals::OpKind::swap:
    return "SWAP";
  }
  return "REQUEST";
}

const char* s4bxi_response_name(portals::OpKind operation)
{
  return operation == portals::OpKind::put || operation == portals::OpKind::atomic ? "ACK" : "REPLY";
}

} // namespace bxisim::hw
