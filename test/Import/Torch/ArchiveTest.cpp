//===- ArchiveTest.cpp - The .pt2 archive reader ---------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Archive.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using stride::torch::Pt2Archive;

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string makeZip(const Entries &entries) {
  return stride::torch::makeStoredZip(entries);
}

const Entries kModel = {
    {"net/archive_format", "pt2"},
    {"net/models/model.json", R"({"schema_version": {"major": 8}})"},
    {"net/data/weights/model_weights_config.json", R"({"config": {}})"},
};

TEST(Pt2Archive, FindsTheModelAndItsWeightsConfig) {
  stride::Result<Pt2Archive> archive = Pt2Archive::open(makeZip(kModel));
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ(archive->modelEntry(), "net/models/model.json");
  ASSERT_TRUE(archive->weightsConfigEntry().has_value());
  EXPECT_EQ(*archive->weightsConfigEntry(),
            "net/data/weights/model_weights_config.json");
  EXPECT_FALSE(archive->constantsConfigEntry().has_value());
  EXPECT_EQ(archive->weightsDir(), "net/data/weights/");
  stride::Result<std::string> json = archive->read("net/models/model.json");
  ASSERT_TRUE(json) << json.error().message;
  EXPECT_EQ(*json, R"({"schema_version": {"major": 8}})");
}

TEST(Pt2Archive, ReadingAMissingEntryFails) {
  stride::Result<Pt2Archive> archive = Pt2Archive::open(makeZip(kModel));
  ASSERT_TRUE(archive);
  stride::Result<std::string> data = archive->read("net/data/weights/weight_0");
  ASSERT_FALSE(data);
  EXPECT_EQ(data.error().message,
            "'net/data/weights/weight_0': no such entry in the archive");
}

TEST(Pt2Archive, AChangedByteFailsTheCrc) {
  std::string bytes = makeZip(kModel);
  size_t at = bytes.find("schema_version");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'S';
  stride::Result<Pt2Archive> archive = Pt2Archive::open(bytes);
  ASSERT_TRUE(archive) << archive.error().message;
  stride::Result<std::string> json = archive->read("net/models/model.json");
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().message,
            "'net/models/model.json': corrupt entry (CRC error)");
}

TEST(Pt2Archive, RefusesBytesThatAreNotAZip) {
  for (std::string bytes : {std::string(), std::string("PK\3\4 truncated"),
                            std::string("{\"graph_module\": {}}")}) {
    stride::Result<Pt2Archive> archive = Pt2Archive::open(bytes);
    ASSERT_FALSE(archive);
    EXPECT_NE(archive.error().message.find("not a readable zip archive"),
              std::string::npos)
        << archive.error().message;
  }
}

TEST(Pt2Archive, RefusesATruncatedZip) {
  std::string bytes = makeZip(kModel);
  stride::Result<Pt2Archive> archive =
      Pt2Archive::open(bytes.substr(0, bytes.size() - 10));
  ASSERT_FALSE(archive);
  EXPECT_NE(archive.error().message.find("truncated, corrupt"),
            std::string::npos);
}

TEST(Pt2Archive, RefusesTheLegacyLayout) {
  stride::Result<Pt2Archive> archive = Pt2Archive::open(
      makeZip({{"m/serialized_exported_program.json", "{}"},
               {"m/serialized_state_dict.pt", "pickle"}}));
  ASSERT_FALSE(archive);
  EXPECT_NE(archive.error().message.find("re-save the program with torch >= 2.8"),
            std::string::npos);
}

TEST(Pt2Archive, RefusesNoModelAndTwoModels) {
  stride::Result<Pt2Archive> none =
      Pt2Archive::open(makeZip({{"m/data/weights/weight_0", "abcd"}}));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no model in the archive"),
            std::string::npos);
  stride::Result<Pt2Archive> two = Pt2Archive::open(
      makeZip({{"m/models/a.json", "{}"}, {"m/models/b.json", "{}"}}));
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("holds 2 models"), std::string::npos);
}

} // namespace
