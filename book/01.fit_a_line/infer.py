"""Chapter 1 inference with the pre-trained v2 parameters (``uci_housing.model()``)."""

import paddle_lite as paddle
import paddle_lite.dataset.uci_housing as uci_housing


def main():
    paddle.init(use_gpu=False, trainer_count=1)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    parameters = uci_housing.model()
    test_data = [(item[0],) for item in uci_housing.test()()]
    probs = paddle.infer(output_layer=y_predict, parameters=parameters, input=test_data)
    for p in probs:
        print("Predicted price: $%.2f" % (p[0] * 1000))
    return probs


if __name__ == "__main__":
    main()
