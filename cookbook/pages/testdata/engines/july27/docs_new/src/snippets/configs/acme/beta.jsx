// A config in the shape of 2026-07-27: match dims, overlay rows, a redirect cell.
export const config = {
  modelName: "Beta",
  supportedHardware: ["b200", "h200"],
  matchDims: [
    { id: "pdMode", title: "PD", options: [{ id: "unified", label: "Unified" }, { id: "decode", label: "Decode" }] },
    { id: "strategy", title: "Strategy", options: [
      { id: "balanced", label: "Balanced" },
      { id: "low-latency", label: "Low Latency", showWhen: (s) => s.pdMode === "unified" },
    ] },
  ],
  overlayDims: [
    { id: "spec", title: "Spec Decode", default: "none", options: [
      { id: "none", label: "Off" },
      { id: "mtp", label: "MTP", flags: ["--speculative-algorithm EAGLE", "--speculative-num-steps 3"] },
      { id: "dspark", label: "DSpark", flags: (s) => [`--speculative-algorithm DSPARK-${s.hw}`], disabled: (s) => s.hw === "h200", disableReason: "Blackwell only" },
    ] },
    { id: "hicache", title: "HiCache", showWhen: (s) => s.pdMode === "decode", options: [
      { id: "off", label: "Off" },
      { id: "l2", label: "L2", flags: ["--enable-hierarchical-cache"] },
    ] },
  ],
  placeholders: { PORT: { target: "command", label: "Port", default: "30000" } },
  runModes: ["python", "docker"],
  cells: [
    { match: { hw: "b200", pdMode: "unified", strategy: "balanced" }, verified: true, flags: ["--model-path acme/Beta", "--tp 8", "--port {{PORT}}"] },
    { match: { hw: "b200", pdMode: "unified", strategy: "low-latency" }, flags: ["--model-path acme/Beta", "--tp 8", "--max-running-requests 16"] },
    { match: { hw: "b200", pdMode: "decode", strategy: "balanced" }, warn: "decode node only", flags: ["--model-path acme/Beta", "--disaggregation-mode decode"] },
    { match: { hw: "h200", pdMode: "unified", strategy: "balanced" }, flags: ["--model-path acme/Beta", "--tp 8"] },
    { match: { hw: "h200", pdMode: "decode", strategy: "balanced" }, redirect: true, warn: "see the [B200 page](#b200)" },
  ],
};
