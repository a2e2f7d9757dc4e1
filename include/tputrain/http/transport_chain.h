#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tputrain/http/transport.h"
#include "tputrain/http/websocket.h"

namespace tputrain::http {

// A stack of decorators that owns its layers: built innermost first (curl), each next layer
// wrapping the one before; calls enter at the outermost. The composition root hands one of
// these to each client, so a client holds one reference whatever the stack looks like.
template <typename Interface>
class LayerStack {
 public:
  // Adds `layer` on top and returns it (a decorator's constructor takes the layer below: top()).
  template <typename Layer, typename... Args>
  Layer& Push(Args&&... args) {
    auto layer = std::make_unique<Layer>(std::forward<Args>(args)...);
    Layer& added = *layer;
    layers_.push_back(std::move(layer));
    return added;
  }
  // Adds a layer made elsewhere (the leaf the composition root is given: curl, or a test's fake).
  Interface& Push(std::unique_ptr<Interface> layer) {
    layers_.push_back(std::move(layer));
    return *layers_.back();
  }
  Interface& top() { return *layers_.back(); }

 private:
  // No layer calls the one below from its destructor, so the order they are destroyed in is free.
  std::vector<std::unique_ptr<Interface>> layers_;
};

class TransportChain final : public Transport, public LayerStack<Transport> {
 public:
  core::Result<Response> Send(const Request& request) override { return top().Send(request); }
  core::Result<Response> Stream(const Request& request, const ChunkHandler& on_chunk) override {
    return top().Stream(request, on_chunk);
  }
};

class WebSocketChain final : public WebSocketConnector, public LayerStack<WebSocketConnector> {
 public:
  core::Result<std::unique_ptr<WebSocketConnection>> Connect(const std::string& url, const Headers& headers) override {
    return top().Connect(url, headers);
  }
};

}  // namespace tputrain::http
