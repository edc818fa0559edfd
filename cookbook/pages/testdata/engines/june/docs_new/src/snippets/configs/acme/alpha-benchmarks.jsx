export const benchmarks = [
  { match: { hw: "h100", variant: "base", quant: "bf16", strategy: "balanced", nodes: "single" }, speed: 1234 },
];
