# Shared by the bench scripts (sourced from the repository root).

# Prints the model to benchmark: $1 when given, else ../shared/models/yolo11n-pose.onnx when
# present, else a zoo yolo11n-pose written to out/ (built once).
default_model() {
  if [ -n "${1:-}" ]; then
    echo "$1"
  elif [ -f ../shared/models/yolo11n-pose.onnx ]; then
    echo ../shared/models/yolo11n-pose.onnx
  else
    mkdir -p out
    [ -f out/yolo11n-pose.onnx ] || build/edgeq zoo yolo11n-pose -o out/yolo11n-pose.onnx >/dev/null
    echo out/yolo11n-pose.onnx
  fi
}
