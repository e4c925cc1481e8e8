# Shared by the scripts (sourced from the repository root).

# Prints the model to benchmark: $1 when given, else the repository's real yolo11n-pose.
default_model() {
  echo "${1:-models/yolo11n-pose.onnx}"
}

# Prints the CPU the numbers come from: model, threads, and its AVX2 / AVX-512 / VNNI flags.
cpu_line() {
  echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads;" \
    "flags: $(grep -o -w -E 'avx2|avx512f|avx512_vnni|avx_vnni' /proc/cpuinfo | sort -u | tr '\n' ' ')"
}

# require_split_data SCRIPT DATA: exits with a message unless DATA holds images/train and
# images/val (labels/ beside them), the held-out splits' sources.
require_split_data() {
  [ -d "$2/images/train" ] && [ -d "$2/images/val" ] ||
    { echo "$1: $2 needs images/train and images/val with labels/ beside" >&2; exit 1; }
}

# augment_split DIR IMAGES SEED N: N variants of the photos in IMAGES (edgeq augment, labels from
# beside them) as DIR/images and DIR/labels, made again only when DIR does not hold N images.
augment_split() {
  if [ "$(ls "$1/images" 2>/dev/null | wc -l)" != "$4" ]; then
    rm -rf "$1"
    build/edgeq augment --images "$2" --out "$1" --n "$4" --seed "$3" >/dev/null
  fi
}

# Builds edgeq, its tests and the fuzz harnesses with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan (one build serves scripts/test_sanitize.sh and
# scripts/fuzz.sh), installing clang, its sanitizer and libFuzzer runtimes and OpenMP first when
# missing.
build_sanitized() {
  local pkgs=(clang libclang-rt-dev libomp-dev) missing=() p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  echo "== building with clang, -fsanitize=address,undefined and libFuzzer harnesses (build-asan)"
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DEDGEQ_SANITIZE=address,undefined -DEDGEQ_FUZZ=ON -DEDGEQ_PYTHON=OFF "${launcher[@]}" >/dev/null
  cmake --build build-asan -j"$(nproc)" "$@"
}
