#pragma once

#include <map>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/manifest.h"

// The saxml template rendered for serve up and serve down alike (private to workflow).
namespace tputrain::workflow {

struct SaxmlRender {
  std::string tpu_type;
  int64_t replicas = 1;  // model-server groups: one Job, one slice each
  bool expose = false;   // the seed's LoadBalancer; else a ClusterIP Service
  std::vector<std::string> sets;
  std::map<std::string, std::string> configuration;
  std::vector<std::string> template_dirs;
};

struct SaxmlObjects {
  std::vector<k8s::Object> objects;
  std::string admin_deployment;   // sax-admin-server
  std::string http_deployment;    // sax-http
  std::string jobset;             // sax-model-server-set
  std::string service;            // sax-http-lb
  int64_t model_server_pods = 0;  // replicas × hosts per slice
};

core::Result<SaxmlObjects> RenderSaxml(const SaxmlRender& request);

}  // namespace tputrain::workflow
