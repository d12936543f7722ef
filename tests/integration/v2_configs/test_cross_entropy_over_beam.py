"""v2 config test_cross_entropy_over_beam: a three-step beam over sentences and spans."""

import paddle_lite as paddle

L = paddle.layer
DT = paddle.data_type
BEAM_SIZE = 5


def network():
    sentence_states = L.data(name="sentence_states", type=DT.dense_vector_sub_sequence(32))
    sentence_scores = L.data(name="sentence_scores", type=DT.dense_vector_sequence(1))
    topk_sentence_ids = L.kmax_seq_score(input=sentence_scores, beam_size=BEAM_SIZE)
    topk_sen = L.sub_nested_seq(input=sentence_states, selected_indices=topk_sentence_ids)
    start_pos_scores = L.fc(input=topk_sen, size=1, act=paddle.activation.Linear())
    topk_start_pos_ids = L.kmax_seq_score(input=sentence_scores, beam_size=BEAM_SIZE)
    topk_start_spans = L.seq_slice(input=topk_sen, starts=topk_start_pos_ids, ends=None)
    end_pos_scores = L.fc(input=topk_start_spans, size=1, act=paddle.activation.Linear())
    topk_end_pos_ids = L.kmax_seq_score(input=end_pos_scores, beam_size=BEAM_SIZE)
    sentence_idx = L.data(name="sentences_ids", type=DT.integer_value(1))
    start_idx = L.data(name="start_ids", type=DT.integer_value(1))
    end_idx = L.data(name="end_ids", type=DT.integer_value(1))
    cost = L.cross_entropy_over_beam(
        input=[
            L.BeamInput(
                candidate_scores=sentence_scores,
                selected_candidates=topk_sentence_ids,
                gold=sentence_idx,
            ),
            L.BeamInput(
                candidate_scores=start_pos_scores,
                selected_candidates=topk_start_pos_ids,
                gold=start_idx,
            ),
            L.BeamInput(
                candidate_scores=end_pos_scores,
                selected_candidates=topk_end_pos_ids,
                gold=end_idx,
            ),
        ]
    )
    return [cost], []
