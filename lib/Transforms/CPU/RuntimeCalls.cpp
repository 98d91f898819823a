//===- RuntimeCalls.cpp - calls of TGC's runtime from compiled code -------===//

#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tgc;

FailureOr<LLVM::LLVMFuncOp>
mlir::tgc::declareRuntimeFunction(ModuleOp module, Location loc,
                                  StringRef name, LLVM::LLVMFunctionType type) {
  Operation *existing = module.lookupSymbol(name);
  auto decl = dyn_cast_or_null<LLVM::LLVMFuncOp>(existing);
  if (existing && (!decl || decl.getFunctionType() != type))
    return emitError(loc) << "the module has a symbol @" << name
                          << " that is not the runtime function " << type;
  if (decl)
    return decl;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type,
                                  LLVM::Linkage::ExternWeak);
}

LogicalResult mlir::tgc::createRuntimeCall(OpBuilder &builder, Location loc,
                                           ModuleOp module, StringRef name,
                                           ValueRange args) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Type> argTypes(args.getTypes());
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                          argTypes);
  if (failed(declareRuntimeFunction(module, loc, name, type)))
    return failure();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Value address = LLVM::AddressOfOp::create(builder, loc, ptr, name);
  Value null = LLVM::ZeroOp::create(builder, loc, ptr);
  Value present = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne,
                                       address, null);
  auto branch = scf::IfOp::create(builder, loc, present, /*withElse=*/false);
  OpBuilder tb = branch.getThenBodyBuilder();
  SmallVector<Value> operands = {address};
  llvm::append_range(operands, args);
  LLVM::CallOp::create(tb, loc, type, operands);
  return success();
}

Value mlir::tgc::createStringConstant(OpBuilder &builder, Location loc,
                                      StringRef name, StringRef text) {
  std::string data = text.str();
  data.push_back('\0'); // the runtime reads a C string
  return LLVM::createGlobalString(loc, builder, name, data,
                                  LLVM::Linkage::Internal);
}

FailureOr<std::pair<Value, Value>>
mlir::tgc::createAlignedMalloc(OpBuilder &builder, Location loc,
                               ModuleOp module, Type indexType, Value bytes,
                               int64_t alignment) {
  FailureOr<LLVM::LLVMFuncOp> malloc =
      LLVM::lookupOrCreateMallocFn(builder, module, indexType);
  if (failed(malloc))
    return failure();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(builder, loc, indexType,
                                    builder.getIntegerAttr(indexType, v));
  };
  Value request = bytes;
  if (alignment > 1)
    request = LLVM::AddOp::create(builder, loc, bytes, constant(alignment - 1));
  Value allocated =
      LLVM::CallOp::create(builder, loc, *malloc, ValueRange{request})
          .getResult();
  if (alignment <= 1)
    return std::make_pair(allocated, allocated);
  auto ptr = LLVM::LLVMPointerType::get(builder.getContext());
  Value asInt = LLVM::PtrToIntOp::create(builder, loc, indexType, allocated);
  Value bumped = LLVM::AddOp::create(builder, loc, asInt, constant(alignment - 1));
  Value masked = LLVM::AndOp::create(builder, loc, bumped, constant(-alignment));
  return std::make_pair(allocated,
                        Value(LLVM::IntToPtrOp::create(builder, loc, ptr, masked)));
}
