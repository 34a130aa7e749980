"""librdkafka's public structs used by connectors/kafka/native.py and its compiled loops
(rdkafka.h, unchanged since librdkafka 1.0; a 64-bit platform)."""
import numpy as np

# rd_kafka_message_t
MESSAGE = np.dtype([("err", np.int32), ("_pad0", np.int32), ("rkt", np.uint64), ("partition", np.int32),
                    ("_pad1", np.int32), ("payload", np.uint64), ("len", np.uint64), ("key", np.uint64),
                    ("key_len", np.uint64), ("offset", np.int64), ("_private", np.uint64)])
assert MESSAGE.itemsize == 72
