#!/usr/bin/python3
"""Held-out log-likelihood per token of a Unigram vocabulary (bench/unigram.sh).

    /usr/bin/python3 bench/unigram_ll.py MODEL HELD_OUT.txt   # MODEL: a tokenizer.json, or spm_train's .vocab

Both kinds of file are read into pieces and log probabilities (special, control and byte tokens left out) and
scored by the same code, so the numbers compare: the text is NFKC-normalized, cut at white space, each word given
its "▁", and cut by Viterbi into the pieces with the highest summed log probability (a character no piece covers
scores 10 below the lowest piece, as SentencePiece and Hugging Face score unk). Prints "tokens log_likelihood
per_token": the total of the best paths' log probabilities over their token count (higher is better).
"""
import json
import sys
import unicodedata


def read_pieces(path):
    if path.endswith(".json"):
        model = json.load(open(path, encoding="utf-8"))["model"]
        entries = [(p, s) for p, s in model["vocab"]]
    else:
        entries = []
        for line in open(path, encoding="utf-8"):
            piece, score = line.rstrip("\n").split("\t")
            entries.append((piece, float(score)))
    # <unk>, <s>, </s>, <0xNN> and the like: score 0 and in angle brackets.
    return {p: s for p, s in entries if not (s == 0 and p.startswith("<") and p.endswith(">"))}


def main():
    pieces = read_pieces(sys.argv[1])
    longest = max(len(p) for p in pieces)
    unk = min(pieces.values()) - 10
    tokens = 0
    total = 0.0
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            for word in unicodedata.normalize("NFKC", line).split():
                word = "\u2581" + word
                n = len(word)
                best = [0.0] + [float("-inf")] * n
                count = [0] * (n + 1)
                for i in range(n):
                    if best[i] == float("-inf"):
                        continue
                    single = False
                    for j in range(i + 1, min(n, i + longest) + 1):
                        s = pieces.get(word[i:j])
                        if s is None:
                            continue
                        if j == i + 1:
                            single = True
                        if best[i] + s > best[j]:
                            best[j] = best[i] + s
                            count[j] = count[i] + 1
                    if not single and best[i] + unk > best[i + 1]:
                        best[i + 1] = best[i] + unk
                        count[i + 1] = count[i] + 1
                tokens += count[n]
                total += best[n]
    print(tokens, f"{total:.1f}", f"{total / max(tokens, 1):.4f}")


if __name__ == "__main__":
    main()
