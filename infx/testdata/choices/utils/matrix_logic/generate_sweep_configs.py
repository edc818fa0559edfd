# Fixture: the constants cookbook-sync reads from InferenceX's sweep generator.
BYTES_PER_MIB = 1024 * 1024
BYTES_PER_GB = 1_000_000_000
MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 2_861_022
entry = {
    Fields.MAX_MODEL_LEN.value: isl + osl + 256,
}
