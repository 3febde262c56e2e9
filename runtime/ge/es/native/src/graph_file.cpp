// ge-ops' ES runtime library: the graph file (docs/model-format.md, "Graph
// files"): the container with one section, kind 1, holding the graph as
// JSON with sorted object keys and no whitespace, as ge.graph.air writes it.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "esrt_internal.h"

namespace ge {
namespace {
constexpr uint32_t kVersion = 1U;
constexpr uint32_t kGraphSection = 1U;

uint32_t Crc32(const std::string &bytes) {
  static uint32_t table[256];
  static bool ready = false;
  if (!ready) {
    for (uint32_t n = 0; n < 256U; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) {
        c = (c & 1U) != 0U ? 0xEDB88320U ^ (c >> 1U) : c >> 1U;
      }
      table[n] = c;
    }
    ready = true;
  }
  uint32_t crc = 0xFFFFFFFFU;
  for (const char c : bytes) {
    crc = table[(crc ^ static_cast<uint8_t>(c)) & 0xFFU] ^ (crc >> 8U);
  }
  return crc ^ 0xFFFFFFFFU;
}

void PutLittle(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out += static_cast<char>((value >> (8 * i)) & 0xFFU);
  }
}

std::string Quoted(const std::string &text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20U) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[byte >> 4U];
      out += kHex[byte & 15U];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Attrs(const std::vector<std::pair<std::string, AttrValue>> &attrs) {
  std::string out = "[";
  bool first = true;
  for (const auto &entry : attrs) {
    const AttrValueImpl &value = *entry.second.impl;
    if (!value.set) {
      continue;  // an empty AttrValue (an attr left at its default)
    }
    out += first ? "" : ",";
    first = false;
    out += "[" + Quoted(entry.first) + ",{\"type\":" + Quoted(value.type) + ",\"value\":" + value.json + "}]";
  }
  return out + "]";
}

std::string Name(const char *name, const std::string &what) {
  if (name == nullptr) {
    throw std::runtime_error(what + " has no name in the graph file format");
  }
  return Quoted(name);
}

std::string GraphJson(const GraphImpl &graph, int depth);

std::string NodeJson(const NodeData &node, const std::map<const NodeData *, size_t> &index, int depth) {
  auto ref = [&](const NodeData *producer) -> std::string {
    const auto found = index.find(producer);
    if (found == index.end()) {
      throw std::runtime_error("node " + node.name + " refers to a node outside its graph");
    }
    return std::to_string(found->second);
  };
  std::string out = "{\"attrs\":" + Attrs(node.attrs) + ",\"control_inputs\":[";
  for (size_t i = 0; i < node.control_inputs.size(); ++i) {
    out += (i == 0U ? "" : ",") + ref(node.control_inputs[i]);
  }
  out += "],\"inputs\":[";
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const auto &edge = node.inputs[i];
    out += i == 0U ? "" : ",";
    out += edge.first == nullptr ? "null" : "[" + ref(edge.first) + "," + std::to_string(edge.second) + "]";
  }
  out += "],\"ir_inputs\":[";
  for (size_t i = 0; i < node.ir_inputs.size(); ++i) {
    const auto &ir = node.ir_inputs[i];
    out += (i == 0U ? "[" : ",[") + Quoted(ir.name) + "," + Quoted(ir.kind) + "," + std::to_string(ir.count) + "]";
  }
  out += "],\"ir_outputs\":[";
  for (size_t i = 0; i < node.ir_outputs.size(); ++i) {
    const auto &ir = node.ir_outputs[i];
    out += (i == 0U ? "[" : ",[") + Quoted(ir.name) + "," + (ir.dynamic ? "true" : "false") + "," +
           std::to_string(ir.count) + "]";
  }
  out += "],\"name\":" + Quoted(node.name) + ",\"outputs\":[";
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const OutputMeta &meta = node.outputs[i];
    std::string shape = "null";
    if (meta.known_shape) {
      shape = "[";
      for (size_t d = 0; d < meta.dims.size(); ++d) {
        shape += (d == 0U ? "" : ",") + std::to_string(meta.dims[d]);
      }
      shape += "]";
    }
    out += (i == 0U ? "[" : ",[") + shape + "," + Name(DataTypeName(meta.dtype), "a dtype") + "," +
           Name(FormatName(meta.format), "a format") + "]";
  }
  out += "],\"ref_outputs\":[";
  for (size_t i = 0; i < node.ref_outputs.size(); ++i) {
    out += (i == 0U ? "[" : ",[") + std::to_string(node.ref_outputs[i].first) + "," +
           std::to_string(node.ref_outputs[i].second) + "]";
  }
  out += "],\"subgraphs\":[";
  for (size_t i = 0; i < node.subgraphs.size(); ++i) {
    out += (i == 0U ? "[" : ",[") + Quoted(node.subgraphs[i].first) + ",[";
    const auto &graphs = node.subgraphs[i].second;
    for (size_t g = 0; g < graphs.size(); ++g) {
      out += (g == 0U ? "" : ",") + GraphJson(*graphs[g], depth + 1);
    }
    out += "]]";
  }
  return out + "],\"type\":" + Quoted(node.type) + "}";
}

std::string GraphJson(const GraphImpl &graph, int depth) {
  if (depth > 32) {
    throw std::runtime_error("subgraphs nested more than 32 deep");
  }
  std::map<const NodeData *, size_t> index;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    index[graph.nodes[i].get()] = i;
  }
  std::string out = "{\"attrs\":" + Attrs(graph.attrs) + ",\"name\":" + Quoted(graph.name) + ",\"nodes\":[";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    out += (i == 0U ? "" : ",") + NodeJson(*graph.nodes[i], index, depth);
  }
  out += "],\"outputs\":[";
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const auto found = index.find(graph.outputs[i].first);
    if (found == index.end()) {
      throw std::runtime_error("a graph output of " + graph.name + " is not a node of it");
    }
    out += (i == 0U ? "[" : ",[") + std::to_string(found->second) + "," + std::to_string(graph.outputs[i].second) +
           "]";
  }
  return out + "]}";
}
}  // namespace

std::string GraphFileBytes(const GraphImpl &graph) {
  const std::string body = GraphJson(graph, 0);
  const uint64_t body_offset = 24U + 24U + 4U;  // header, one table entry, header CRC
  std::string head = "GECPUAIR";
  PutLittle(head, kVersion, 4);
  PutLittle(head, 1U, 4);  // one section
  PutLittle(head, body_offset + body.size(), 8);
  PutLittle(head, kGraphSection, 4);
  PutLittle(head, Crc32(body), 4);
  PutLittle(head, body_offset, 8);
  PutLittle(head, body.size(), 8);
  const uint32_t head_crc = Crc32(head);
  PutLittle(head, head_crc, 4);
  return head + body;
}
}  // namespace ge
