//===- ModuleStreams.cpp - The checks of a module's streams and events ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The part of verifyModule that checks the fork and join of the collective
// stream (python-free-docs/module-format.md, "Streams and events"): what
// the runtime relies on to enqueue the steps on two streams, inside a CUDA
// graph capture too, and to find the invocation's stream idle only when
// both are.
//
//===----------------------------------------------------------------------===//

#include "ModuleInternal.h"

#include "stride/Module/Module.h"

#include <optional>

namespace stride {

using detail::str;

namespace {

/// The stream step `step` runs on; nullopt for a step that names none
/// (every kind but library calls and events runs on the invocation's).
std::optional<StreamId> streamOf(const Step &step) {
  if (const auto *call = std::get_if<LibraryCallStep>(&step))
    return call->stream;
  if (const auto *event = std::get_if<EventStep>(&step))
    return event->stream;
  return std::nullopt;
}

StreamId streamOrMain(const Step &step) {
  return streamOf(step).value_or(StreamId::Main);
}

bool isNcclCall(const LibraryCallStep &call) {
  return call.routine.rfind("nccl.", 0) == 0;
}

/// Walks the steps once, keeping for each event the step that records it.
class StreamChecker {
public:
  explicit StreamChecker(const ModuleDesc &desc)
      : desc(desc), recordedBy(desc.events) {}

  std::string run() {
    if (desc.formatVersion < 6)
      return checkNoStreams();
    std::optional<size_t> lastOnCollective;
    for (size_t i = 0; i < desc.steps.size(); ++i) {
      if (std::string problem = checkStep(i); !problem.empty())
        return problem;
      if (streamOrMain(desc.steps[i]) == StreamId::Collective)
        lastOnCollective = i;
    }
    for (uint32_t e = 0; e < desc.events; ++e)
      if (!recordedBy[e])
        return "event " + str(e) + " of " + str(desc.events) +
               " is never recorded";
    if (lastOnCollective)
      return checkJoined(*lastOnCollective);
    return "";
  }

private:
  const ModuleDesc &desc;
  /// Per event: the step that records it.
  std::vector<std::optional<size_t>> recordedBy;
  bool collectiveStarted = false;

  std::string stepName(size_t i) const {
    return "step " + str(i + 1) + " of " + str(desc.steps.size());
  }

  /// A version 5 module runs on one stream: it has none of version 6's
  /// fields.
  std::string checkNoStreams() const {
    if (desc.events != 0)
      return "format version " + str(desc.formatVersion) + " has no events, "
             "but the module declares " + str(desc.events);
    for (size_t i = 0; i < desc.steps.size(); ++i)
      if (std::holds_alternative<EventStep>(desc.steps[i]) ||
          streamOrMain(desc.steps[i]) != StreamId::Main)
        return stepName(i) + " uses streams or events, which format "
               "version " + str(desc.formatVersion) + " does not have";
    return "";
  }

  std::string checkStep(size_t i) {
    const Step &step = desc.steps[i];
    std::optional<StreamId> stream = streamOf(step);
    if (stream && uint8_t(*stream) >= kStreamCount)
      return stepName(i) + " runs on stream " + str(uint8_t(*stream)) +
             "; a module has streams 0 (the invocation's) and 1 (the "
             "collective stream)";
    if (const auto *call = std::get_if<LibraryCallStep>(&step))
      if (call->stream == StreamId::Collective && !isNcclCall(*call))
        return stepName(i) + " (library call '" + call->routine +
               "') runs on the collective stream, which runs NCCL's "
               "routines (nccl.*) only";
    std::string problem;
    if (const auto *event = std::get_if<EventStep>(&step))
      problem = checkEvent(*event, i);
    if (problem.empty() && stream == StreamId::Collective)
      problem = checkForked(step, i);
    return problem;
  }

  std::string checkEvent(const EventStep &event, size_t i) {
    if (event.action != EventStep::Action::Record &&
        event.action != EventStep::Action::Wait)
      return stepName(i) + " has the event action " +
             str(uint8_t(event.action)) + "; 0 records, 1 waits";
    if (event.event >= desc.events)
      return stepName(i) + " names event " + str(event.event) +
             ", but the module has " + str(desc.events) + " events";
    std::optional<size_t> &recorder = recordedBy[event.event];
    if (event.action == EventStep::Action::Wait) {
      if (!recorder)
        return stepName(i) + " waits for event " + str(event.event) +
               " before any step records it";
      return "";
    }
    if (recorder)
      return "event " + str(event.event) + " is recorded by " +
             stepName(*recorder) + " and by " + stepName(i) +
             "; each event is recorded once";
    recorder = i;
    return "";
  }

  /// The collective stream's first step waits for an event of the
  /// invocation's stream: so it is ordered after what came before the
  /// plan, and a CUDA graph capture of the invocation's stream takes it in.
  std::string checkForked(const Step &step, size_t i) {
    if (collectiveStarted)
      return "";
    collectiveStarted = true;
    const auto *event = std::get_if<EventStep>(&step);
    bool forks = event && event->action == EventStep::Action::Wait &&
                 streamOrMain(desc.steps[*recordedBy[event->event]]) ==
                     StreamId::Main;
    if (forks)
      return "";
    return stepName(i) + " is the collective stream's first step, but not "
                         "a wait for an event of the invocation's stream "
                         "(the collective stream forks from it)";
  }

  /// The collective stream's last step records an event that the
  /// invocation's stream waits for later: the end of the plan joins the
  /// two streams.
  std::string checkJoined(size_t last) const {
    const auto *event = std::get_if<EventStep>(&desc.steps[last]);
    if (event && event->action == EventStep::Action::Record)
      for (size_t i = last + 1; i < desc.steps.size(); ++i) {
        const auto *wait = std::get_if<EventStep>(&desc.steps[i]);
        if (wait && wait->action == EventStep::Action::Wait &&
            wait->event == event->event && wait->stream == StreamId::Main)
          return "";
      }
    return "the collective stream's last step (" + stepName(last) +
           ") is not joined: the invocation's stream must wait for an event "
           "recorded after it";
  }
};

} // namespace

std::string findStreamProblem(const ModuleDesc &desc) {
  // Each event is recorded by a step of its own, so a count above the
  // steps' is refused before anything is sized by it (a hostile count
  // would otherwise allocate gigabytes: stride-module-fuzzer).
  if (desc.events > desc.steps.size())
    return "the module declares " + str(desc.events) + " events but has " +
           str(desc.steps.size()) +
           " steps; each event is recorded by a step of its own";
  return StreamChecker(desc).run();
}

} // namespace stride
