#include "names.h"

#include "tputrain/gcp/names.h"
#include "tputrain/k8s/names.h"

namespace tputrain::workflow {

core::Status CheckGkeName(std::string_view field, std::string_view name) {
  return gcp::CheckResourceId(field, name, gcp::kGkeNameLength);
}

core::Status CheckBucketName(std::string_view field, std::string_view bucket) {
  return gcp::CheckBucketName(field, bucket);
}

core::Status CheckKubeLabelName(std::string_view field, std::string_view name) {
  return k8s::CheckNamespace(field, name);
}

core::Status CheckKubeObjectName(std::string_view field, std::string_view name) {
  return k8s::CheckObjectName(field, name);
}

}  // namespace tputrain::workflow
