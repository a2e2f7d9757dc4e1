#pragma once

#include <string>
#include <string_view>

// Reading Google resource names and the paths that hold them, one way for every module:
// "projects/P/locations/L/clusters/C/nodePools/N", Compute's self links
// ("https://compute.googleapis.com/compute/v1/projects/P/zones/Z/instances/I"), Service Usage's
// "projects/NUMBER", an IAM principal ("principal://.../ns/NS/sa/NAME"). A name that lacks what is
// asked for reads as "", never throws.
namespace tputrain::core {

// The segment after `collection`, at its first occurrence as a whole segment:
// SegmentAfter("projects/p/locations/l/clusters/c", "clusters") == "c".
std::string SegmentAfter(std::string_view name, std::string_view collection);

// The last segment: the resource's own id ("n" of ".../nodePools/n"), or `name` when it has no '/'.
std::string LastSegment(std::string_view name);

// Where the resource is: its locations/, zones/ or regions/ segment, "global" for a name
// projects/P/global/..., or "".
std::string LocationOfName(std::string_view name);

}  // namespace tputrain::core
