// A config no page imports: rendered by the engine's component with {config}.
export const config = {
  modelName: "Orphan",
  supportedHardware: ["h200"],
  variants: [{ id: "base", label: "Base" }],
  quantizations: [{ id: "bf16", label: "BF16" }],
  strategies: [{ id: "balanced", label: "Balanced" }],
  nodesOptions: [{ id: "single", label: "Single" }],
  modelNames: { "base|bf16": "acme/Orphan" },
  cells: [{ match: { hw: "h200", variant: "base", quant: "bf16", strategy: "balanced", nodes: "single" }, flags: ["--model-path {{MODEL_NAME}}"] }],
};
