// A config in the shape of August 2026: verificationStatus, runModes(sel).
export const config = {
  modelName: "Gamma",
  supportedHardware: ["b200", "h200"],
  matchDims: [
    { id: "variant", title: "Variant", options: [{ id: "base", label: "Base" }, { id: "omni", label: "Omni" }] },
  ],
  overlayDims: [
    { id: "encoder", title: "Encoder", default: "tp", showWhen: (s) => s.variant === "omni", options: [
      { id: "tp", label: "TP" },
      { id: "dp", label: "DP", flags: ["--mm-encoder-dp"] },
    ] },
  ],
  runModes: (s) => (s.hw === "h200" ? ["docker"] : ["python", "docker"]),
  cells: [
    { match: { hw: "b200", variant: "base" }, verified: true, verificationStatus: "in-progress", flags: ["--model-path acme/Gamma", "--tp 4"] },
    { match: { hw: "b200", variant: "omni" }, verificationStatus: "verified", flags: ["--model-path acme/Gamma-Omni", "--tp 4"] },
    { match: { hw: "h200", variant: "base" }, verificationStatus: "typo", flags: ["--model-path acme/Gamma", "--tp 8"] },
  ],
};
