"""tokvec's side of bench/padded_batch.sh: Tokenizer.encode_batch(batch, add_special_tokens=True,
return_tensors="np") over batches of BATCH lines (the tokenizer.json's truncation and padding), timed in Python
(load and file read excluded). Prints "seconds checksum cells" of the median of ROUNDS runs, as the npm peer.
With `dropin`, the same through tokvec.tokenizers (Hugging Face's API: an Encoding object per line, whose lists are
read as the peer reads getIds()).

  PYTHONPATH=build/python /usr/bin/python3 bench/padded_batch.py TOKENIZER_JSON LINES_FILE BATCH ROUNDS [dropin]
"""
import statistics
import sys
import time

import tokvec

path, lines_file, batch_size, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dropin = len(sys.argv) > 5 and sys.argv[5] == "dropin"
tok = tokvec.Tokenizer.load(path)
if dropin:
    from tokvec.tokenizers import Tokenizer
    tok = Tokenizer.from_file(path)
with open(lines_file, encoding="utf-8") as f:
    lines = [line for line in f.read().split("\n") if line]
times = []
checksum = cells = 0
for _ in range(rounds):
    start = time.perf_counter()
    checksum = cells = 0
    for i in range(0, len(lines), batch_size):
        if dropin:
            for e in tok.encode_batch(lines[i:i + batch_size]):
                checksum += sum(e.ids) + sum(e.attention_mask) + sum(e.type_ids)
                cells += len(e.ids)
            continue
        arrays = tok.encode_batch(lines[i:i + batch_size], allowed_special="all", add_special_tokens=True,
                                  return_tensors="np")
        checksum += int(arrays["input_ids"].sum() + arrays["attention_mask"].sum() + arrays["token_type_ids"].sum())
        cells += arrays["input_ids"].size
    times.append(time.perf_counter() - start)
print(f"{statistics.median(times)} {checksum} {cells}")
