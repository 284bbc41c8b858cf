#pragma once
// Workspaces that outlive the loops: each thread of a parallel loop borrows one for the loop
// and hands it back, so that training allocates its scratch memory once, not every step.
#include <memory>
#include <mutex>
#include <vector>

#include "phasesim/training/layer.hpp"

namespace phasesim::training {

class WorkspacePool {
 public:
  explicit WorkspacePool(const LayerModel& model) : model_(model) {}

  /// A workspace for the lifetime of the lease (one thread's state in parallel_for).
  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<LayerWorkspace> workspace)
        : pool_(pool), workspace_(std::move(workspace)) {}
    ~Lease() { pool_.give_back(std::move(workspace_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    LayerWorkspace& operator*() { return *workspace_; }

   private:
    WorkspacePool& pool_;
    std::unique_ptr<LayerWorkspace> workspace_;
  };

  Lease lease() {
    const std::lock_guard lock(mutex_);
    if (free_.empty()) return {*this, std::make_unique<LayerWorkspace>(model_)};
    auto workspace = std::move(free_.back());
    free_.pop_back();
    return {*this, std::move(workspace)};
  }

 private:
  void give_back(std::unique_ptr<LayerWorkspace> workspace) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(workspace));
  }

  const LayerModel& model_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<LayerWorkspace>> free_;
};

}  // namespace phasesim::training
