#include "runtime/issue_order.h"

#include <gtest/gtest.h>

#include "command_list_builders.h"

namespace ios {
namespace {

using testing::Op;
using testing::Record;
using testing::Wait;

// A two-stage fork/join by hand: origin runs 0, forks to streams 1 and 2, runs 1, joins.
CommandList ForkJoinList() {
  CommandList list;
  list.num_events = 3;
  list.streams = {{Op(0), Record(0), Op(1), Wait(1), Wait(2), Op(4)},
                  {Wait(0), Op(2), Record(1)},
                  {Wait(0), Op(3), Record(2)}};
  return list;
}

TEST(IssueOrderTest, WaitsComeAfterRecordsAndStreamsInterleave) {
  auto order = IssueOrder(ForkJoinList());
  ASSERT_TRUE(order.ok()) << order.status().message();
  ASSERT_EQ(order->size(), 12u);
  EXPECT_TRUE(CheckCaptureSequence(*order, 3).ok());
  // Ops 1, 2 and 3 of the concurrent stage are issued one per stream before op 4.
  std::vector<NodeId> ops;
  for (const IssuedCommand& c : *order)
    if (c.command.kind == CommandKind::kRunOp) ops.push_back(c.command.op);
  EXPECT_EQ(ops, (std::vector<NodeId>{0, 1, 2, 3, 4}));
}

TEST(IssueOrderTest, RefusesAWaitOnAnEventNeverRecorded) {
  CommandList list;
  list.num_events = 2;
  list.streams = {{Op(0), Wait(1)}, {Wait(0), Record(1)}};  // event 0 is never recorded
  auto order = IssueOrder(list);
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("never recorded"), std::string::npos);
}

TEST(IssueOrderTest, RefusesAnEventRecordedTwice) {
  CommandList list;
  list.num_events = 1;
  list.streams = {{Record(0), Op(0), Record(0)}};
  EXPECT_FALSE(IssueOrder(list).ok());
}

TEST(IssueOrderTest, CaptureCheckCatchesAStreamThatIsNotJoined) {
  CommandList list = ForkJoinList();
  list.streams[0] = {Op(0), Record(0), Op(1), Wait(1), Op(4)};  // never waits on stream 2
  auto order = IssueOrder(list);
  ASSERT_TRUE(order.ok());
  Status status = CheckCaptureSequence(*order, 3);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("stream 2"), std::string::npos) << status.message();
}

TEST(IssueOrderTest, CaptureCheckCatchesAStreamThatDoesNotStartFromTheOrigin) {
  CommandList list;
  list.num_events = 1;
  list.streams = {{Op(0), Wait(0)}, {Op(1), Record(0)}};
  auto order = IssueOrder(list);
  ASSERT_TRUE(order.ok());
  Status status = CheckCaptureSequence(*order, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("does not start by waiting on the origin"), std::string::npos);
}

}  // namespace
}  // namespace ios
