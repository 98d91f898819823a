// TGC's bundled example: a two-layer perceptron classifier with a dynamic
// batch size, written in the `tgc` dialect as the FX importer would emit it
// for
//
//   class MLP(torch.nn.Module):
//       def __init__(self):
//           super().__init__()
//           self.fc1 = torch.nn.Linear(64, 128)
//           self.fc2 = torch.nn.Linear(128, 10)
//       def forward(self, x):
//           h = torch.nn.functional.gelu(self.fc1(x))
//           return torch.softmax(self.fc2(h), dim=1)
//
// with the parameters passed as inputs (weights are [out, in], as in
// torch.nn.Linear) and `x` marked dynamic in dim 0 (`?`): one compile serves
// every batch size.
//
// Try it (after utils/setup.sh):
//   build/bin/tgc-opt examples/mlp.mlir --canonicalize
//   build/bin/tgc-opt examples/mlp.mlir --mlir-print-op-generic

func.func @mlp(%x: tensor<?x64xf32>,
               %w1: tensor<128x64xf32>, %b1: tensor<128xf32>,
               %w2: tensor<10x128xf32>, %b2: tensor<10xf32>)
    -> tensor<?x10xf32> {
  // Hidden layer: [B, 64] x [128, 64]^T + [128] -> [B, 128], then GELU.
  %h = tgc.linear %x, %w1, %b1 : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  // Output layer: [B, 128] -> [B, 10] logits, then class probabilities.
  %y = tgc.linear %a, %w2, %b2 : tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<?x10xf32>
  %p = tgc.softmax %y dim = 1 : tensor<?x10xf32>
  return %p : tensor<?x10xf32>
}
