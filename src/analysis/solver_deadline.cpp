#include "exo2/analysis/solver_deadline.hpp"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace exo2 {

namespace {

using Clock = std::chrono::steady_clock;

// The deadlines of the checks running, and the thread that keeps them. One
// for the process, never destroyed (its thread may still wait when static
// objects are destroyed at exit).
//
// At its deadline a check gets `Z3_solver_interrupt`, which cancels it
// through the check's own handler and leaves nothing behind. That
// interrupt is lost when it comes before the check has set its handler up
// (the thread descheduled between the two), so a check still running 10 ms
// later, and every 10 ms after, gets `Z3_interrupt`, which cancels the
// context's resource limit. A check's start and end reset that limit: the
// cancellation outlives the check only when it comes after the check's
// end, and a check of nothing then clears it (`Registration::end`).
struct Watchdog {
  struct Entry {
    Z3_context ctx;
    Z3_solver solver;
    Clock::time_point deadline;
    bool expired = false;    // Z3_solver_interrupt was called
    bool escalated = false;  // Z3_interrupt was called
  };
  std::mutex mutex;
  std::condition_variable wake;
  std::map<uint64_t, Entry> entries;  // by id
  uint64_t next_id = 0;
  bool thread_started = false;
  // When the thread wakes next (max: when notified): a deadline after it
  // needs no notification, so that a query wakes no thread in general.
  Clock::time_point wake_at = Clock::time_point::max();

  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      Clock::time_point next = Clock::time_point::max();
      const Clock::time_point now = Clock::now();
      for (auto& [id, e] : entries) {
        if (e.deadline <= now) {
          if (!e.expired) {
            e.expired = true;
            Z3_solver_interrupt(e.ctx, e.solver);
          } else {
            e.escalated = true;
            Z3_interrupt(e.ctx);
          }
          e.deadline = now + std::chrono::milliseconds(10);
        }
        next = std::min(next, e.deadline);
      }
      wake_at = next;
      if (next == Clock::time_point::max())
        wake.wait(lock);
      else
        wake.wait_until(lock, next);
    }
  }
};

Watchdog* current = nullptr;  // the process's; replaced in a forked child

// A fork copies the mutex and the condition variable but not the thread
// (the BLAS generator forks its workers after loading kernels that ran
// queries); the thread's wait on the copied condition variable is never
// ended, and a notify would wait for it. The mutex is held across the fork
// so that the child sees no half-made change, and the child starts a
// watchdog of its own, with no deadline and no thread yet (the copy is
// left as it is).
void before_fork() { current->mutex.lock(); }
void after_fork_in_parent() { current->mutex.unlock(); }
void after_fork_in_child() { current = new Watchdog(); }

Watchdog& watchdog() {
  static const bool created = [] {
    current = new Watchdog();
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
    return true;
  }();
  (void)created;
  return *current;
}

// A check's registration with the watchdog, from just before the check to
// just after it (an exception included).
class Registration {
 public:
  Registration(z3::solver& solver, unsigned timeout_ms) : solver_(solver) {
    Watchdog& w = watchdog();
    std::lock_guard<std::mutex> lock(w.mutex);
    if (!w.thread_started) {
      std::thread([&w] { w.run(); }).detach();
      w.thread_started = true;
    }
    id_ = w.next_id++;
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(timeout_ms);
    w.entries.emplace(id_, Watchdog::Entry{solver.ctx(), solver, deadline});
    if (deadline < w.wake_at) w.wake.notify_one();
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  ~Registration() { end(); }

  // Ends the registration (no interrupt comes after it); whether the
  // deadline passed.
  bool end() {
    if (ended_) return expired_;
    ended_ = true;
    bool escalated = false;
    {
      Watchdog& w = watchdog();
      std::lock_guard<std::mutex> lock(w.mutex);
      auto it = w.entries.find(id_);
      expired_ = it->second.expired;
      escalated = it->second.escalated;
      w.entries.erase(it);
    }
    if (escalated) {
      // A check of nothing resets the context's resource limit (the next
      // check's start would too: nothing is lost if this one throws, which
      // a destructor must not pass on).
      try {
        z3::solver nothing = z3::tactic(solver_.ctx(), "skip").mk_solver();
        nothing.check();
      } catch (const z3::exception&) {
      }
    }
    return expired_;
  }

 private:
  z3::solver& solver_;
  uint64_t id_ = 0;
  bool ended_ = false;
  bool expired_ = false;
};

}  // namespace

DeadlineCheck check_within(z3::solver& solver, unsigned timeout_ms) {
  Registration registration(solver, timeout_ms);
  const z3::check_result result = solver.check();
  return {result, registration.end()};
}

}  // namespace exo2
