<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AblationView</name>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Δloss</source>
        <translation>Δ损失</translation>
    </message>
    <message>
        <source>switched off (Debug → Ablation)</source>
        <translation>已关闭（调试 → 消融）</translation>
    </message>
    <message>
        <source>loaded data, first N pairs</source>
        <translation>已加载的数据，前 N 个句子对</translation>
    </message>
    <message>
        <source>the Inspect tab&apos;s source and target</source>
        <translation>“检查”标签页中的源文本和目标文本</translation>
    </message>
    <message>
        <source>a data file…</source>
        <translation>数据文件…</translation>
    </message>
    <message>
        <source>N = </source>
        <translation>N = </translation>
    </message>
    <message>
        <source>Tick a head to switch it off (its output is zeroed before W_o)</source>
        <translation>勾选一个头即可关闭它（它的输出在 W_o 之前被置零）</translation>
    </message>
    <message>
        <source>Tick heads to switch them off; the effect is measured at once.</source>
        <translation>勾选头即可关闭它们；效果会立即测量。</translation>
    </message>
    <message>
        <source>Sweep every head</source>
        <translation>逐个关闭每个头</translation>
    </message>
    <message>
        <source>Switch off each head in turn and measure ΔBLEU and Δloss</source>
        <translation>依次关闭每个头，测量 ΔBLEU 和 Δ损失</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>%v of %m</source>
        <translation>%v / %m</translation>
    </message>
    <message>
        <source>sentences</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>heads switched off</source>
        <translation>已关闭的头</translation>
    </message>
    <message>
        <source>Measuring {n} sentence pairs…</source>
        <translation>正在测量 {n} 个句子对…</translation>
    </message>
    <message>
        <source>Sentence pairs</source>
        <translation>句子对</translation>
    </message>
    <message>
        <source>Corpora (*.txt *.tsv *.zip);;All files (*)</source>
        <translation>语料 (*.txt *.tsv *.zip);;所有文件 (*)</translation>
    </message>
    <message>
        <source>{kind} L{layer} h{head}</source>
        <translation>{kind} L{layer} h{head}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{off} head(s) off&lt;/b&gt; · BLEU {bleu:.4f} (all heads {base_bleu:.4f}) · loss {loss:.4f} (all heads {base_loss:.4f}) · {tokens} tokens</source>
        <translation>&lt;b&gt;关闭了 {off} 个头&lt;/b&gt; · BLEU {bleu:.4f}（不关闭任何头时 {base_bleu:.4f}）· 损失 {loss:.4f}（不关闭任何头时 {base_loss:.4f}）· {tokens} 个词元</translation>
    </message>
    <message>
        <source> &lt;i&gt;(was: {was})&lt;/i&gt;</source>
        <translation> &lt;i&gt;（原为：{was}）&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>About Attention Explorer</source>
        <translation>关于 Attention Explorer</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>The attention chapter of &lt;i&gt;Dive into Deep Learning&lt;/i&gt; (§11.1–11.7), made visible: kernel regression, scoring functions, multi-head attention, positional encoding and a small Transformer you can train and inspect.</source>
        <translation>把《动手学深度学习》的注意力机制一章（中文版 §10.1–10.7）变成看得见的图：核回归、注意力评分函数、多头注意力、位置编码，以及一个可以亲手训练和检查的小型 Transformer。</translation>
    </message>
</context>
<context>
    <name>AnatomyPanel</name>
    <message>
        <source>FFN input</source>
        <translation>前馈网络的输入</translation>
    </message>
    <message>
        <source>FFN output</source>
        <translation>前馈网络的输出</translation>
    </message>
    <message>
        <source>The book&apos;s norm example</source>
        <translation>书中的归一化例子</translation>
    </message>
    <message>
        <source>Batch X</source>
        <translation>批量 X</translation>
    </message>
    <message>
        <source>Batch LayerNorm</source>
        <translation>批量的 LayerNorm</translation>
    </message>
    <message>
        <source>Batch BatchNorm</source>
        <translation>批量的 BatchNorm</translation>
    </message>
    <message>
        <source>Output of the chosen box</source>
        <translation>所选方框的输出</translation>
    </message>
    <message>
        <source>Position-wise FFN</source>
        <translation>基于位置的前馈网络</translation>
    </message>
    <message>
        <source>Add &amp;&amp; norm</source>
        <translation>残差连接和层归一化</translation>
    </message>
    <message>
        <source>Encoder and decoder blocks</source>
        <translation>编码器块和解码器块</translation>
    </message>
    <message>
        <source>FFN(&lt;b&gt;x&lt;/b&gt;) = &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;2&lt;/sub&gt; ReLU(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;1&lt;/sub&gt;&lt;b&gt;x&lt;/b&gt; + &lt;b&gt;b&lt;/b&gt;&lt;sub&gt;1&lt;/sub&gt;) + &lt;b&gt;b&lt;/b&gt;&lt;sub&gt;2&lt;/sub&gt; per position &amp;nbsp;|&amp;nbsp; AddNorm(X, Y) = LayerNorm(X + Y), &amp;nbsp;LayerNorm(&lt;b&gt;x&lt;/b&gt;) = (&lt;b&gt;x&lt;/b&gt; − μ&lt;sub&gt;&lt;b&gt;x&lt;/b&gt;&lt;/sub&gt;) / σ&lt;sub&gt;&lt;b&gt;x&lt;/b&gt;&lt;/sub&gt;</source>
        <translation>FFN(&lt;b&gt;x&lt;/b&gt;) = &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;2&lt;/sub&gt; ReLU(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;1&lt;/sub&gt;&lt;b&gt;x&lt;/b&gt; + &lt;b&gt;b&lt;/b&gt;&lt;sub&gt;1&lt;/sub&gt;) + &lt;b&gt;b&lt;/b&gt;&lt;sub&gt;2&lt;/sub&gt;（逐位置）&amp;nbsp;|&amp;nbsp; AddNorm(X, Y) = LayerNorm(X + Y)，&amp;nbsp;LayerNorm(&lt;b&gt;x&lt;/b&gt;) = (&lt;b&gt;x&lt;/b&gt; − μ&lt;sub&gt;&lt;b&gt;x&lt;/b&gt;&lt;/sub&gt;) / σ&lt;sub&gt;&lt;b&gt;x&lt;/b&gt;&lt;/sub&gt;</translation>
    </message>
    <message>
        <source>Every block stacks sublayers, each wrapped in a residual connection and layer normalization (add &amp;amp; norm): attention mixes positions; the position-wise FFN transforms each position on its own, so a repeated word without positions gives the same output. LayerNorm normalizes each token over its features; BatchNorm&apos;s statistics mix the batch and its padding. The decoder adds masked self-attention and encoder–decoder attention. Click a box to see the tensors entering and leaving it: the shape (batch, steps, num_hiddens) never changes.</source>
        <translation>每个块由若干子层堆叠而成，每个子层外面都套着残差连接和层归一化（“加法和归一化”）：注意力在位置之间混合信息；基于位置的前馈网络对每个位置单独变换，所以没有位置编码时，重复出现的词得到相同的输出。LayerNorm 在每个词元的特征上做归一化；BatchNorm 的统计量则混合了整个批量及其填充。解码器还多了掩蔽自注意力和编码器-解码器注意力。点击一个方框，查看进出它的张量：形状（批量, 步数, num_hiddens）始终不变。</translation>
    </message>
    <message>
        <source>source sentence (encoder input)</source>
        <translation>源句子（编码器的输入）</translation>
    </message>
    <message>
        <source>target sentence (decoder input after &lt;bos&gt;, teacher forcing)</source>
        <translation>目标句子（解码器在 &lt;bos&gt; 之后的输入，强制教学）</translation>
    </message>
    <message>
        <source>a sentence in which a word occurs twice</source>
        <translation>某个词出现两次的句子</translation>
    </message>
    <message>
        <source>which encoder block&apos;s FFN</source>
        <translation>哪个编码器块的前馈网络</translation>
    </message>
    <message>
        <source>add positional encoding</source>
        <translation>加上位置编码</translation>
    </message>
    <message>
        <source>with positions the two occurrences are different vectors</source>
        <translation>加上位置编码后，两次出现是不同的向量</translation>
    </message>
    <message>
        <source>sentences of the batch, separated by |</source>
        <translation>批量中的句子，用 | 分隔</translation>
    </message>
    <message>
        <source>num_steps: every sentence is padded to this length</source>
        <translation>num_steps：每个句子都填充到这个长度</translation>
    </message>
    <message>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>sentences</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Sentence pair</source>
        <translation>句子对</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>{origin}: {layers} layers, d = {hiddens}, {heads} heads</source>
        <translation>{origin}：{layers} 层，d = {hiddens}，{heads} 个头</translation>
    </message>
    <message>
        <source>Not in the model&apos;s vocabulary, read as &lt;unk&gt;: {words}</source>
        <translation>不在模型的词表中、按 &lt;unk&gt; 处理：{words}</translation>
    </message>
    <message>
        <source>Could not open the model: {message}</source>
        <translation>无法打开模型：{message}</translation>
    </message>
</context>
<context>
    <name>ArchitecturePanel</name>
    <message>
        <source>multiply–adds: CNN k·n·d², RNN 2·n·d², self-attention 2·n²·d &amp;nbsp;|&amp;nbsp; sequential operations: 1, n, 1 &amp;nbsp;|&amp;nbsp; maximum path length: ⌈(n−1)/&amp;#8288;((k−1)/2)⌉, n, 1</source>
        <translation>乘加次数：CNN k·n·d²，RNN 2·n·d²，自注意力 2·n²·d &amp;nbsp;|&amp;nbsp; 顺序操作：1, n, 1 &amp;nbsp;|&amp;nbsp; 最大路径长度：⌈(n−1)/&amp;#8288;((k−1)/2)⌉, n, 1</translation>
    </message>
    <message>
        <source>Three layers turn n tokens of width d into n outputs. A convolution of kernel size k mixes neighbours in parallel but needs a stack of layers before the first token reaches the last (O(n/k)); an RNN walks the sequence one step at a time (O(n) sequential operations and path); self-attention joins every pair in one hop at a cost that grows with n² (O(n²d)). The counts are exact multiply–adds, equal to what torch counts on real layers: two d×d products per RNN step; QKᵀ and the product with V for self-attention (tick the box to add its four d×d projections). Self-attention is cheaper than the RNN while n &amp;lt; d; the dashed line marks the n from which it is the dearest of the three.</source>
        <translation>三种层都把 n 个 d 维词元变成 n 个输出。卷积核大小为 k 的卷积神经网络（CNN）并行地混合相邻位置，但要堆叠多层，第一个词元才能到达最后一个位置（O(n/k)）；循环神经网络（RNN）一步一步地走过序列（O(n) 的顺序操作和路径长度）；自注意力一跳就连接任意两个位置，但计算量随 n² 增长（O(n²d)）。这里的计数是精确的乘加次数，与 torch 在真实层上统计的一致：RNN 每步两个 d×d 乘法；自注意力是 QKᵀ 以及与 V 的乘积（勾选复选框可加上它的四个 d×d 投影）。n &amp;lt; d 时自注意力比 RNN 便宜；虚线标出从哪个 n 起它是三者中计算量最大的。</translation>
    </message>
    <message>
        <source>n: number of tokens</source>
        <translation>n：词元个数</translation>
    </message>
    <message>
        <source>d: width of each token (channels, hidden size)</source>
        <translation>d：每个词元的维度（通道数、隐藏单元数）</translation>
    </message>
    <message>
        <source>k: kernel size of the convolution (odd)</source>
        <translation>k：卷积核大小（奇数）</translation>
    </message>
    <message>
        <source>count W_q, W_k, W_v, W_o</source>
        <translation>计入 W_q、W_k、W_v、W_o</translation>
    </message>
    <message>
        <source>add the self-attention layer&apos;s four d×d projections (4·n·d²)</source>
        <translation>加上自注意力层的四个 d×d 投影（4·n·d²）</translation>
    </message>
    <message>
        <source>Sizes</source>
        <translation>规模</translation>
    </message>
    <message>
        <source>multiply–adds against n</source>
        <translation>乘加次数随 n 的变化</translation>
    </message>
    <message>
        <source>n (tokens)</source>
        <translation>n（词元）</translation>
    </message>
    <message>
        <source>Cost against n</source>
        <translation>计算量随 n 的变化</translation>
    </message>
    <message>
        <source>Paths through the layers</source>
        <translation>穿过各层的路径</translation>
    </message>
    <message>
        <source>self-attention dearest from n = {n:,}</source>
        <translation>从 n = {n:,} 起自注意力计算量最大</translation>
    </message>
    <message>
        <source>Self-attention is the dearest for every n.</source>
        <translation>对任何 n，自注意力的计算量都是最大的。</translation>
    </message>
    <message>
        <source>Self-attention is the dearest from n = &lt;b&gt;{n:,}&lt;/b&gt;.</source>
        <translation>从 n = &lt;b&gt;{n:,}&lt;/b&gt; 起自注意力计算量最大。</translation>
    </message>
    <message>
        <source>At n = {n:,}: &lt;b&gt;{name}&lt;/b&gt; costs the most.</source>
        <translation>n = {n:,} 时：&lt;b&gt;{name}&lt;/b&gt; 计算量最大。</translation>
    </message>
    <message>
        <source>The drawings show the first {count} tokens.</source>
        <translation>图中只画出前 {count} 个词元。</translation>
    </message>
    <message>
        <source>Layers and table</source>
        <translation>各层与表格</translation>
    </message>
</context>
<context>
    <name>AttentionCuesPanel</name>
    <message>
        <source>q, then q = kᵢ</source>
        <translation>q，然后 q = kᵢ</translation>
    </message>
    <message>
        <source>identity (eye)</source>
        <translation>单位矩阵（torch.eye）</translation>
    </message>
    <message>
        <source>dot product</source>
        <translation>点积</translation>
    </message>
    <message>
        <source>scaled dot product</source>
        <translation>缩放点积</translation>
    </message>
    <message>
        <source>additive</source>
        <translation>加性</translation>
    </message>
    <message>
        <source>gaussian</source>
        <translation>高斯</translation>
    </message>
    <message>
        <source>α(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) = softmax&lt;sub&gt;i&lt;/sub&gt;(a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) / T), &amp;nbsp;attention pooling f(&lt;b&gt;q&lt;/b&gt;) = Σ&lt;sub&gt;i&lt;/sub&gt; α(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) v&lt;sub&gt;i&lt;/sub&gt; &amp;nbsp;|&amp;nbsp; a = &lt;b&gt;q&lt;/b&gt;·&lt;b&gt;k&lt;/b&gt; &amp;nbsp;·&amp;nbsp; &lt;b&gt;q&lt;/b&gt;·&lt;b&gt;k&lt;/b&gt;/√d &amp;nbsp;·&amp;nbsp; &lt;b&gt;w&lt;/b&gt;&lt;sub&gt;v&lt;/sub&gt;&lt;sup&gt;⊤&lt;/sup&gt;tanh(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;q&lt;/sub&gt;&lt;b&gt;q&lt;/b&gt; + &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;b&gt;k&lt;/b&gt;) &amp;nbsp;·&amp;nbsp; −‖&lt;b&gt;q&lt;/b&gt; − &lt;b&gt;k&lt;/b&gt;‖²/2</source>
        <translation>α(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) = softmax&lt;sub&gt;i&lt;/sub&gt;(a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) / T)，&amp;nbsp;注意力池化 f(&lt;b&gt;q&lt;/b&gt;) = Σ&lt;sub&gt;i&lt;/sub&gt; α(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;) v&lt;sub&gt;i&lt;/sub&gt; &amp;nbsp;|&amp;nbsp; a = &lt;b&gt;q&lt;/b&gt;·&lt;b&gt;k&lt;/b&gt; &amp;nbsp;·&amp;nbsp; &lt;b&gt;q&lt;/b&gt;·&lt;b&gt;k&lt;/b&gt;/√d &amp;nbsp;·&amp;nbsp; &lt;b&gt;w&lt;/b&gt;&lt;sub&gt;v&lt;/sub&gt;&lt;sup&gt;⊤&lt;/sup&gt;tanh(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;q&lt;/sub&gt;&lt;b&gt;q&lt;/b&gt; + &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;b&gt;k&lt;/b&gt;) &amp;nbsp;·&amp;nbsp; −‖&lt;b&gt;q&lt;/b&gt; − &lt;b&gt;k&lt;/b&gt;‖²/2</translation>
    </message>
    <message>
        <source>Each input is a value v&lt;sub&gt;i&lt;/sub&gt; paired with a key &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt; (a non-volitional cue); the query &lt;b&gt;q&lt;/b&gt; is the volitional cue. A score a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) says how well they match, a softmax makes weights that sum to one, and attention pooling averages the values with them. &lt;b&gt;Drag the query&lt;/b&gt; or click the plane: lines and key sizes show the weights, the background the pooled output f for a query at each place. Near T = 0 the softmax picks the best key alone; a large T spreads the weight evenly. The book&apos;s &lt;code&gt;show_heatmaps(torch.eye(10))&lt;/code&gt; (heatmap: identity), where each query attends only to its own key, is the Gaussian score with queries at the keys (rows q=k&lt;sub&gt;i&lt;/sub&gt;) as T → 0.</source>
        <translation>每个输入是一个值 v&lt;sub&gt;i&lt;/sub&gt;，与一个键 &lt;b&gt;k&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;（非自主性提示）配对；查询 &lt;b&gt;q&lt;/b&gt; 是自主性提示。评分 a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) 衡量二者的匹配程度，softmax 把评分变成和为 1 的权重，注意力池化再用这些权重对值做加权平均。&lt;b&gt;拖动查询&lt;/b&gt;或点击平面：连线和键的大小表示权重，背景颜色表示查询位于各处时的池化输出 f。T 接近 0 时，softmax 只选出最匹配的那个键；T 很大时，权重均匀分散。书中的 &lt;code&gt;show_heatmaps(torch.eye(10))&lt;/code&gt;（热图：单位矩阵）中每个查询只关注自己的键，它就是查询位于各键处（行 q=k&lt;sub&gt;i&lt;/sub&gt;）、T → 0 时的高斯评分。</translation>
    </message>
    <message>
        <source>the scoring function a(q, k)</source>
        <translation>注意力评分函数 a(q, k)</translation>
    </message>
    <message>
        <source>temperature: the scores are divided by T before the softmax</source>
        <translation>温度：评分在 softmax 之前除以 T</translation>
    </message>
    <message>
        <source>number of keys (and values)</source>
        <translation>键（和值）的个数</translation>
    </message>
    <message>
        <source>random layout of the keys, their values and the additive weights</source>
        <translation>键的随机布局、它们的值以及加性注意力的权重</translation>
    </message>
    <message>
        <source>the query&apos;s first coordinate</source>
        <translation>查询的第一个坐标</translation>
    </message>
    <message>
        <source>the query&apos;s second coordinate</source>
        <translation>查询的第二个坐标</translation>
    </message>
    <message>
        <source>rows of the heatmap</source>
        <translation>热图的行</translation>
    </message>
    <message>
        <source>show f(q) over the plane</source>
        <translation>在平面上显示 f(q)</translation>
    </message>
    <message>
        <source>colour each place by f(q) for a query there</source>
        <translation>按查询位于该处时的 f(q) 给每个位置着色</translation>
    </message>
    <message>
        <source>Cues</source>
        <translation>注意力提示</translation>
    </message>
    <message>
        <source>scoring</source>
        <translation>评分函数</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>query q</source>
        <translation>查询 q</translation>
    </message>
    <message>
        <source>heatmap</source>
        <translation>热图</translation>
    </message>
    <message>
        <source>drag the query q</source>
        <translation>拖动查询 q</translation>
    </message>
    <message>
        <source>weights α(q, kᵢ)</source>
        <translation>权重 α(q, kᵢ)</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>largest weight: k{best} ({weight:.2f})
f(q) = Σ αᵢvᵢ = {output:.3g}
entropy {entropy:.2f} of at most {most:.2f} nats</source>
        <translation>最大权重：k{best}（{weight:.2f}）
f(q) = Σ αᵢvᵢ = {output:.3g}
熵 {entropy:.2f} 奈特（最大 {most:.2f}）</translation>
    </message>
    <message>
        <source>The pooled output could not be computed: {message}</source>
        <translation>无法计算池化输出：{message}</translation>
    </message>
    <message>
        <source>Plane</source>
        <translation>平面</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>热图</translation>
    </message>
</context>
<context>
    <name>AttentionDetail</name>
    <message>
        <source>Click a thumbnail in the attention grid to look at it here.</source>
        <translation>点击注意力网格中的缩略图，在这里放大查看。</translation>
    </message>
    <message>
        <source>average over heads</source>
        <translation>对各头取平均</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>No attention map yet.</source>
        <translation>还没有注意力图。</translation>
    </message>
    <message>
        <source>residual r</source>
        <translation>残差权重 r</translation>
    </message>
    <message>
        <source>Rollout and flow weigh each layer&apos;s attention A against the residual connection I: r·A + (1 − r)·I (0.5 in the paper)</source>
        <translation>注意力展开和注意力流按 r·A + (1 − r)·I 权衡每层的注意力 A 与残差连接 I（论文中为 0.5）</translation>
    </message>
    <message>
        <source>Export {format}…</source>
        <translation>导出 {format}…</translation>
    </message>
    <message>
        <source>all heads (mean)</source>
        <translation>所有头（平均）</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>{count:,} tokens are too many for lines; the heatmap shows them.</source>
        <translation>{count:,} 个词元太多，无法画连线；请看热图。</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <source>flow</source>
        <translation>注意力流</translation>
    </message>
    <message>
        <source>Computing {what}…</source>
        <translation>正在计算{what}…</translation>
    </message>
    <message>
        <source>Attention flow is not computed here: {reason}</source>
        <translation>此处不计算注意力流：{reason}</translation>
    </message>
    <message>
        <source>Rollout · {kind}</source>
        <translation>注意力展开 · {kind}</translation>
    </message>
    <message>
        <source>Flow · {kind}</source>
        <translation>注意力流 · {kind}</translation>
    </message>
    <message>
        <source>Output token {number} “{token}” draws on these input tokens (click a row or a token to choose another)</source>
        <translation>输出词元 {number}“{token}”依赖这些输入词元（点击一行或一个词元可换一个）</translation>
    </message>
    <message>
        <source>all layers · r = {r:g} · {model}</source>
        <translation>所有层 · r = {r:g} · {model}</translation>
    </message>
    <message>
        <source>all layers · r = {r:g} · step {step}, epoch {epoch}</source>
        <translation>所有层 · r = {r:g} · 第 {step} 步，第 {epoch} 轮</translation>
    </message>
    <message>
        <source>head {number} · KV {kv}</source>
        <translation>头 {number} · KV {kv}</translation>
    </message>
    <message>
        <source>layer {layer} · {heads} · {model}</source>
        <translation>第 {layer} 层 · {heads} · {model}</translation>
    </message>
    <message>
        <source>layer {layer} · {heads} · step {step}, epoch {epoch}</source>
        <translation>第 {layer} 层 · {heads} · 第 {step} 步，第 {epoch} 轮</translation>
    </message>
    <message>
        <source>Computing the mean of all heads of layer {layer} at full resolution ({q:,} × {k:,})…</source>
        <translation>正在以全分辨率计算第 {layer} 层所有头的平均（{q:,} × {k:,}）…</translation>
    </message>
    <message>
        <source>Computing head {head} of layer {layer} at full resolution ({q:,} × {k:,})…</source>
        <translation>正在以全分辨率计算第 {layer} 层的头 {head}（{q:,} × {k:,}）…</translation>
    </message>
    <message>
        <source>Attention detail</source>
        <translation>注意力细节</translation>
    </message>
    <message>
        <source>There is no attention map to export yet.</source>
        <translation>还没有可导出的注意力图。</translation>
    </message>
    <message>
        <source>Could not compute this head: {error}</source>
        <translation>无法计算这个头：{error}</translation>
    </message>
    <message>
        <source>Could not compute this map: {error}</source>
        <translation>无法计算这张图：{error}</translation>
    </message>
    <message>
        <source>query &lt;b&gt;{query}&lt;/b&gt; → key &lt;b&gt;{key}&lt;/b&gt;: weight {weight:.4f}</source>
        <translation>查询 &lt;b&gt;{query}&lt;/b&gt; → 键 &lt;b&gt;{key}&lt;/b&gt;：权重 {weight:.4f}</translation>
    </message>
    <message>
        <source>Export attention as {format}</source>
        <translation>把注意力导出为 {format}</translation>
    </message>
    <message>
        <source>Saved {name}</source>
        <translation>已保存 {name}</translation>
    </message>
</context>
<context>
    <name>AttentionGrid</name>
    <message>
        <source>Alignment score of this cross-attention head: the mean weight it puts on the source position the task says each output should look at (1 = the ideal pattern, 0 = none of it)</source>
        <translation>这个编码器-解码器注意力头的对齐分数：它在任务规定每个输出应关注的源位置上的平均权重（1 = 理想模式，0 = 完全没有）</translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>Decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>Encoder–decoder (cross) attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>Start training (or open a model) to see every head&apos;s attention here.</source>
        <translation>开始训练（或打开模型），在这里查看每个头的注意力。</translation>
    </message>
    <message>
        <source>head {number} · KV {kv}</source>
        <translation>头 {number} · KV {kv}</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>align.</source>
        <translation>对齐</translation>
    </message>
    <message>
        <source>layer {number}</source>
        <translation>第 {number} 层</translation>
    </message>
    <message>
        <source>{map}, layer {layer}, head {head}: click for a large view</source>
        <translation>{map}，第 {layer} 层，头 {head}：点击放大查看</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>所有层</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <source>flow</source>
        <translation>注意力流</translation>
    </message>
    <message>
        <source>Attention rollout of the {map} over all layers (Abnar &amp; Zuidema 2020): which input tokens each output token draws on; click for a large view</source>
        <translation>{map}在所有层上的注意力展开（Abnar 与 Zuidema 2020）：每个输出词元依赖哪些输入词元；点击放大查看</translation>
    </message>
    <message>
        <source>Attention flow of the {map} over all layers (maximum flow, Abnar &amp; Zuidema 2020); click for a large view</source>
        <translation>{map}在所有层上的注意力流（最大流，Abnar 与 Zuidema 2020）；点击放大查看</translation>
    </message>
    <message>
        <source>Rollout and flow need every head&apos;s full map; this text is long, so only pooled maps were computed</source>
        <translation>注意力展开和注意力流需要每个头的完整注意力图；这段文本太长，只计算了池化后的图</translation>
    </message>
</context>
<context>
    <name>BasePanel</name>
    <message>
        <source>Formula and explanation</source>
        <translation>公式与说明</translation>
    </message>
</context>
<context>
    <name>BeamTreeView</name>
    <message>
        <source>root</source>
        <translation>根</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>pruned</source>
        <translation>已剪枝</translation>
    </message>
    <message>
        <source>{token} · {status} · log p {log_p:.3f} · score {score:.3f}</source>
        <translation>{token} · {status} · log p {log_p:.3f} · 得分 {score:.3f}</translation>
    </message>
    <message>
        <source>Build the tree of a beam search; click a node to see the attention of the step that produced it.</source>
        <translation>构建束搜索的搜索树；点击一个节点，查看产生它的那一步的注意力。</translation>
    </message>
    <message>
        <source>source text</source>
        <translation>源文本</translation>
    </message>
    <message>
        <source>width </source>
        <translation>宽度 </translation>
    </message>
    <message>
        <source>Build tree</source>
        <translation>构建树</translation>
    </message>
    <message>
        <source>Build the tree, then click a node to see its attention here.</source>
        <translation>先构建搜索树，再点击一个节点，它的注意力会显示在这里。</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>&lt;b&gt;best:&lt;/b&gt; {text} · score {score:.3f} · {n} nodes · red: the best path</source>
        <translation>&lt;b&gt;最佳：&lt;/b&gt;{text} · 得分 {score:.3f} · {n} 个节点 · 红色：最佳路径</translation>
    </message>
</context>
<context>
    <name>BlockDiagram</name>
    <message>
        <source>encoder block</source>
        <translation>编码器块</translation>
    </message>
    <message>
        <source>decoder block</source>
        <translation>解码器块</translation>
    </message>
    <message>
        <source>{box}: click to see the tensors entering and leaving it</source>
        <translation>{box}：点击查看进出它的张量</translation>
    </message>
</context>
<context>
    <name>BlocksTab</name>
    <message>
        <source>which block of the stack (each has the same boxes)</source>
        <translation>堆叠中的第几个块（每个块的方框都一样）</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>Every box keeps the shape (batch, steps, num_hiddens): (1, {source}, {d}) in the encoder, (1, {target}, {d}) in the decoder.</source>
        <translation>每个方框都保持形状（批量, 步数, num_hiddens）：编码器中为 (1, {source}, {d})，解码器中为 (1, {target}, {d})。</translation>
    </message>
    <message>
        <source>encoder block {number}</source>
        <translation>编码器块 {number}</translation>
    </message>
    <message>
        <source>decoder block {number}</source>
        <translation>解码器块 {number}</translation>
    </message>
</context>
<context>
    <name>Classroom</name>
    <message>
        <source>Could not open the lesson</source>
        <translation>无法打开课件</translation>
    </message>
    <message>
        <source>{name} was saved by a newer version of Attention Explorer (lesson format {version}); what this version understands was opened.</source>
        <translation>{name} 由更新版本的 Attention Explorer 保存（课件格式 {version}）；已打开本版本能识别的部分。</translation>
    </message>
    <message>
        <source>Opened the lesson {name}.</source>
        <translation>已打开课件 {name}。</translation>
    </message>
    <message>
        <source>Skipped:
{items}</source>
        <translation>已跳过：
{items}</translation>
    </message>
    <message>
        <source>Lesson opened in part</source>
        <translation>课件已部分打开</translation>
    </message>
    <message>
        <source>Lesson opened</source>
        <translation>课件已打开</translation>
    </message>
    <message>
        <source>Could not save the lesson</source>
        <translation>无法保存课件</translation>
    </message>
    <message>
        <source>Lesson saved in part</source>
        <translation>课件已部分保存</translation>
    </message>
    <message>
        <source>Saved the lesson to {path}; these settings could not be kept:
{items}</source>
        <translation>课件已保存到 {path}；以下设置无法保留：
{items}</translation>
    </message>
    <message>
        <source>Lesson saved</source>
        <translation>课件已保存</translation>
    </message>
    <message>
        <source>Saved the lesson to {path}.</source>
        <translation>课件已保存到 {path}。</translation>
    </message>
    <message>
        <source>Exported {count} files to {folder} (index: {index}); not exported:
{items}</source>
        <translation>已导出 {count} 个文件到 {folder}（索引：{index}）；未能导出：
{items}</translation>
    </message>
    <message>
        <source>Exported {count} files to {folder} (index: {index}).</source>
        <translation>已导出 {count} 个文件到 {folder}（索引：{index}）。</translation>
    </message>
    <message>
        <source>The controls are locked: View → Lock controls unlocks them.</source>
        <translation>控件已锁定：在“视图 → 锁定控件”中解锁。</translation>
    </message>
    <message>
        <source>Open lesson</source>
        <translation>打开课件</translation>
    </message>
    <message>
        <source>Save lesson</source>
        <translation>保存课件</translation>
    </message>
    <message>
        <source>Attention Explorer lesson (*{suffix})</source>
        <translation>Attention Explorer 课件 (*{suffix})</translation>
    </message>
    <message>
        <source>Export all plots and tables into</source>
        <translation>把所有图和表导出到</translation>
    </message>
</context>
<context>
    <name>ControlLock</name>
    <message>
        <source>Controls locked</source>
        <translation>控件已锁定</translation>
    </message>
    <message>
        <source>View → Lock controls: the panels&apos; controls ignore clicks and keys.</source>
        <translation>视图 → 锁定控件：各面板的控件不响应点击和按键。</translation>
    </message>
</context>
<context>
    <name>CostTable</name>
    <message>
        <source>multiply–adds</source>
        <translation>乘加次数</translation>
    </message>
    <message>
        <source>sequential operations</source>
        <translation>顺序操作</translation>
    </message>
    <message>
        <source>maximum path length</source>
        <translation>最大路径长度</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
</context>
<context>
    <name>DataBox</name>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Open a Tatoeba-style file (English&lt;TAB&gt;French per line, .txt/.tsv/.zip)</source>
        <translation>打开 Tatoeba 格式的文件（每行“英语&lt;TAB&gt;法语”，.txt/.tsv/.zip）</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>pairs to use</source>
        <translation>使用的句子对数</translation>
    </message>
    <message>
        <source>Source sentence whose attention is drawn while training</source>
        <translation>训练时绘制其注意力的源句子</translation>
    </message>
    <message>
        <source>Its target sentence (teacher-forced into the decoder)</source>
        <translation>它的目标句子（以强制教学方式输入解码器）</translation>
    </message>
    <message>
        <source>probe source</source>
        <translation>探针源句子</translation>
    </message>
    <message>
        <source>probe target</source>
        <translation>探针目标句子</translation>
    </message>
    <message>
        <source>Loading {source}…</source>
        <translation>正在加载 {source}…</translation>
    </message>
    <message numerus="yes">
        <source>{source} · vocabulary {source_tokens} source / {target_tokens} target tokens · %n malformed line(s) skipped (line {lines})</source>
        <translation>
            <numerusform>{source} · 词表：源语言 {source_tokens} 个词元 / 目标语言 {target_tokens} 个词元 · 跳过了 %n 个格式错误的行（第 {lines} 行）</numerusform>
        </translation>
    </message>
    <message>
        <source>{source} · vocabulary {source_tokens} source / {target_tokens} target tokens</source>
        <translation>{source} · 词表：源语言 {source_tokens} 个词元 / 目标语言 {target_tokens} 个词元</translation>
    </message>
    <message>
        <source>File: {name}</source>
        <translation>文件：{name}</translation>
    </message>
    <message>
        <source>Built-in English–French</source>
        <translation>内置英语-法语</translation>
    </message>
    <message>
        <source>Task: copy</source>
        <translation>任务：复制</translation>
    </message>
    <message>
        <source>Task: reverse</source>
        <translation>任务：反转</translation>
    </message>
    <message>
        <source>Task: sort</source>
        <translation>任务：排序</translation>
    </message>
    <message>
        <source>copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>reverse</source>
        <translation>反转</translation>
    </message>
    <message>
        <source>sort</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>built-in English–French</source>
        <translation>内置英语-法语</translation>
    </message>
    <message>
        <source>task: {task}</source>
        <translation>任务：{task}</translation>
    </message>
    <message>
        <source>{source} ({pairs} pairs)</source>
        <translation>{source}（{pairs} 个句子对）</translation>
    </message>
</context>
<context>
    <name>DataState</name>
    <message>
        <source>Loading {source}…</source>
        <translation>正在加载 {source}…</translation>
    </message>
    <message>
        <source>Loaded {source}.</source>
        <translation>已加载 {source}。</translation>
    </message>
    <message>
        <source>Could not load the data: {error}</source>
        <translation>无法加载数据：{error}</translation>
    </message>
</context>
<context>
    <name>DebugState</name>
    <message>
        <source>the probe needs a source and a target: type both in the Inspect tab</source>
        <translation>探针需要源文本和目标文本：请在“检查”标签页中都填上</translation>
    </message>
    <message>
        <source>choose a data file first</source>
        <translation>请先选择数据文件</translation>
    </message>
    <message>
        <source>no data is loaded: choose a data source in the Transformer studio (or use the probe or a data file)</source>
        <translation>还没有加载数据：请在 Transformer 工作室中选择数据源（或使用探针或数据文件）</translation>
    </message>
    <message>
        <source>no model: open one in the Inspect tab (or train one in the studio) first</source>
        <translation>没有模型：请先在“检查”标签页中打开一个（或在工作室中训练一个）</translation>
    </message>
    <message>
        <source>explaining a cell needs an inspected text: use Inspect or Generate first</source>
        <translation>解释格子需要一段已检查的文本：请先点击“检查”或“生成”</translation>
    </message>
    <message>
        <source>choose the second model first</source>
        <translation>请先选择第二个模型</translation>
    </message>
    <message>
        <source>could not open the second model: {error}</source>
        <translation>无法打开第二个模型：{error}</translation>
    </message>
</context>
<context>
    <name>DebugTabs</name>
    <message>
        <source>Ablation</source>
        <translation>消融</translation>
    </message>
    <message>
        <source>Output probabilities</source>
        <translation>输出概率</translation>
    </message>
    <message>
        <source>Beam tree</source>
        <translation>束搜索树</translation>
    </message>
    <message>
        <source>Model diff</source>
        <translation>模型对比</translation>
    </message>
    <message>
        <source>Head summaries</source>
        <translation>头的概况</translation>
    </message>
    <message>
        <source>Rollout and flow combine every head of every layer: click a head&apos;s thumbnail to explain one of its cells.</source>
        <translation>注意力展开和注意力流合并了所有层的所有头：点击某个头的缩略图，才能解释它的单元格。</translation>
    </message>
    <message>
        <source>Cells are explained for a text read in the Inspect tab (a training snapshot&apos;s model is in another process).</source>
        <translation>只能解释在“检查”标签页中读入的文本的格子（训练快照的模型在另一个进程中）。</translation>
    </message>
</context>
<context>
    <name>DecodingView</name>
    <message>
        <source>source text</source>
        <translation>源文本</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>贪心搜索</translation>
    </message>
    <message>
        <source>sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>beam</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>Decode: each step&apos;s attention appears here (a row of the table chooses the step).</source>
        <translation>点击“解码”后，每一步的注意力会显示在这里（点击表格中的一行可选择时间步）。</translation>
    </message>
    <message>
        <source>T </source>
        <translation>T </translation>
    </message>
    <message>
        <source>top-k </source>
        <translation>top-k </translation>
    </message>
    <message>
        <source>top-k off</source>
        <translation>top-k 关闭</translation>
    </message>
    <message>
        <source>top-p </source>
        <translation>top-p </translation>
    </message>
    <message>
        <source>seed </source>
        <translation>随机种子 </translation>
    </message>
    <message>
        <source>width </source>
        <translation>宽度 </translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>Each row is a decoding step: the model&apos;s probabilities (T = 1) of its most probable next tokens; the chosen one is highlighted. Pick a row to see that step&apos;s attention below</source>
        <translation>每一行是一个解码步：模型给出的最可能的下一个词元及其概率（T = 1）；选中的那个高亮显示。选择一行，在下方查看该步的注意力</translation>
    </message>
    <message>
        <source>Choose how to pick each token, then Decode.</source>
        <translation>选择每个词元的选取方式，然后点击“解码”。</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>选中</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>top {i}</source>
        <translation>第 {i} 名</translation>
    </message>
    <message>
        <source>Decoding…</source>
        <translation>正在解码…</translation>
    </message>
    <message>
        <source> (stopped at the length limit)</source>
        <translation>（达到长度上限而停止）</translation>
    </message>
    <message>
        <source>&lt;b&gt;{method}:&lt;/b&gt; {text}{end} · log p = {lp:.3f}</source>
        <translation>&lt;b&gt;{method}：&lt;/b&gt;{text}{end} · log p = {lp:.3f}</translation>
    </message>
</context>
<context>
    <name>DeviceStatus</name>
    <message>
        <source>cpu ({count} threads)</source>
        <translation>cpu（{count} 个线程）</translation>
    </message>
    <message>
        <source>not detected yet</source>
        <translation>尚未检测</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>detecting…</source>
        <translation>正在检测…</translation>
    </message>
    <message>
        <source>Device: {name}</source>
        <translation>设备：{name}</translation>
    </message>
    <message>
        <source>unknown ({error})</source>
        <translation>未知（{error}）</translation>
    </message>
</context>
<context>
    <name>ErrorPage</name>
    <message>
        <source>&lt;h3&gt;{title} could not be opened&lt;/h3&gt;&lt;p&gt;{message}&lt;/p&gt;</source>
        <translation>&lt;h3&gt;无法打开“{title}”&lt;/h3&gt;&lt;p&gt;{message}&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>ExplainView</name>
    <message>
        <source>The head&apos;s query and key after projection, and their element-wise product</source>
        <translation>该头投影后的查询和键，以及它们的逐元素乘积</translation>
    </message>
    <message>
        <source>Click a cell of the map to see how its weight is computed (for a text read in the Inspect tab).</source>
        <translation>点击图中的一个格子，查看它的权重是如何算出来的（针对“检查”标签页中读入的文本）。</translation>
    </message>
    <message>
        <source>The mean over heads is not one computation: untick “average over heads” to explain a cell.</source>
        <translation>各头的平均不是一次计算：取消勾选“对各头取平均”后才能解释格子。</translation>
    </message>
    <message>
        <source>Computing…</source>
        <translation>正在计算…</translation>
    </message>
    <message>
        <source>+ position bias {b}&lt;br&gt;</source>
        <translation>+ 位置偏置 {b}&lt;br&gt;</translation>
    </message>
    <message>
        <source>masked (−∞): this key is not visible</source>
        <translation>已掩蔽（−∞）：这个键不可见</translation>
    </message>
    <message>
        <source>&lt;b&gt;{kind}&lt;/b&gt; layer {layer}, head {head}: query {qi} &lt;b&gt;{qt}&lt;/b&gt; → key {ki} &lt;b&gt;{kt}&lt;/b&gt;&lt;br&gt;q·k = Σ q ⊙ k = {score}&lt;br&gt;÷√d (d = {d}): × {scale} = {scaled}&lt;br&gt;{bias}mask: {mask} → logit {logit}&lt;br&gt;exp(logit − row max {row_max}) = {exp}&lt;br&gt;row normaliser Σ exp = {norm}&lt;br&gt;&lt;b&gt;weight = {exp} / {norm} = {weight:.6f}&lt;/b&gt; · the map shows {map_weight:.6f}</source>
        <translation>&lt;b&gt;{kind}&lt;/b&gt; 第 {layer} 层，头 {head}：查询 {qi} &lt;b&gt;{qt}&lt;/b&gt; → 键 {ki} &lt;b&gt;{kt}&lt;/b&gt;&lt;br&gt;q·k = Σ q ⊙ k = {score}&lt;br&gt;÷√d（d = {d}）：× {scale} = {scaled}&lt;br&gt;{bias}掩蔽：{mask} → logit {logit}&lt;br&gt;exp(logit − 行最大值 {row_max}) = {exp}&lt;br&gt;行归一化因子 Σ exp = {norm}&lt;br&gt;&lt;b&gt;权重 = {exp} / {norm} = {weight:.6f}&lt;/b&gt; · 图中的值为 {map_weight:.6f}</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>The plot has no size yet (is it shown?).</source>
        <translation>图还没有尺寸（它显示出来了吗？）。</translation>
    </message>
    <message>
        <source>Could not render the plot as PNG: {error}</source>
        <translation>无法把图渲染为 PNG：{error}</translation>
    </message>
    <message>
        <source>Could not encode the plot as PNG.</source>
        <translation>无法把图编码为 PNG。</translation>
    </message>
    <message>
        <source>Could not render the plot as SVG: {error}</source>
        <translation>无法把图渲染为 SVG：{error}</translation>
    </message>
    <message>
        <source>The table has shape {shape} but {count} column names.</source>
        <translation>表格形状为 {shape}，但有 {count} 个列名。</translation>
    </message>
    <message>
        <source>Column name {name} contains a comma, quote or line break.</source>
        <translation>列名 {name} 含有逗号、引号或换行。</translation>
    </message>
    <message>
        <source>The table has {rows} rows but {labels} row labels.</source>
        <translation>表格有 {rows} 行，但有 {labels} 个行标签。</translation>
    </message>
    <message>
        <source>“{name}” has no table of numbers to export.</source>
        <translation>“{name}”没有可导出的数值表。</translation>
    </message>
    <message>
        <source>Could not collect the numbers of “{name}”: {error}</source>
        <translation>无法收集“{name}”的数值：{error}</translation>
    </message>
    <message>
        <source>Unknown export format {format}; choose PNG, SVG or CSV.</source>
        <translation>未知的导出格式 {format}；请选择 PNG、SVG 或 CSV。</translation>
    </message>
    <message>
        <source>The folder {folder} does not exist.</source>
        <translation>文件夹 {folder} 不存在。</translation>
    </message>
    <message>
        <source>Could not write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>ExportAll</name>
    <message>
        <source>Attention Explorer export</source>
        <translation>Attention Explorer 导出</translation>
    </message>
    <message>
        <source>Panel</source>
        <translation>面板</translation>
    </message>
    <message>
        <source>Plot</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Not exported</source>
        <translation>未能导出</translation>
    </message>
    <message>
        <source>Empty, not exported</source>
        <translation>内容为空，未导出</translation>
    </message>
</context>
<context>
    <name>ExportAllJob</name>
    <message>
        <source>it could not be built</source>
        <translation>无法构建</translation>
    </message>
    <message>
        <source>Exporting {panel}: {plot} ({format})…</source>
        <translation>正在导出“{panel}”：{plot}（{format}）…</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export plot</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Plot</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>PNG width</source>
        <translation>PNG 宽度</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>{format} files (*.{suffix})</source>
        <translation>{format} 文件 (*.{suffix})</translation>
    </message>
    <message>
        <source>Choose a file name.</source>
        <translation>请选择文件名。</translation>
    </message>
</context>
<context>
    <name>FFNView</name>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>No word occurs twice: type a sentence that repeats one (e.g. “he&apos;s calm , she&apos;s calm .”) to compare its two rows.</source>
        <translation>没有哪个词出现两次：请输入一个有重复词的句子（例如“he&apos;s calm , she&apos;s calm .”），以比较它的两行。</translation>
    </message>
    <message>
        <source>embedding × √d + P</source>
        <translation>嵌入 × √d + P</translation>
    </message>
    <message>
        <source>embedding × √d, no positions</source>
        <translation>嵌入 × √d，不加位置编码</translation>
    </message>
    <message>
        <source>X = {made}. “{word}” at positions {i} and {j}: the input rows are equal, max |x&lt;sub&gt;{i}&lt;/sub&gt; − x&lt;sub&gt;{j}&lt;/sub&gt;| = {input_gap:.3g}; the output rows differ by at most &lt;b&gt;{output_gap:.2g}&lt;/b&gt; (float32 rounding): the FFN treats every position alike.</source>
        <translation>X = {made}。“{word}”位于位置 {i} 和 {j}：两行输入相同，max |x&lt;sub&gt;{i}&lt;/sub&gt; − x&lt;sub&gt;{j}&lt;/sub&gt;| = {input_gap:.3g}；两行输出最多相差 &lt;b&gt;{output_gap:.2g}&lt;/b&gt;（float32 舍入误差）：前馈网络对每个位置一视同仁。</translation>
    </message>
    <message>
        <source>X = {made}. “{word}” at positions {i} and {j}: the input rows are different (positions were added), max |x&lt;sub&gt;{i}&lt;/sub&gt; − x&lt;sub&gt;{j}&lt;/sub&gt;| = {input_gap:.3g}; the output rows differ by at most &lt;b&gt;{output_gap:.2g}&lt;/b&gt;.</source>
        <translation>X = {made}。“{word}”位于位置 {i} 和 {j}：两行输入不同（加了位置编码），max |x&lt;sub&gt;{i}&lt;/sub&gt; − x&lt;sub&gt;{j}&lt;/sub&gt;| = {input_gap:.3g}；两行输出最多相差 &lt;b&gt;{output_gap:.2g}&lt;/b&gt;。</translation>
    </message>
</context>
<context>
    <name>FollowedRun</name>
    <message>
        <source>run {name}, its checkpoint after epoch {epoch} (step {step})</source>
        <translation>训练记录 {name}，第 {epoch} 轮后的检查点（第 {step} 步）</translation>
    </message>
</context>
<context>
    <name>Form</name>
    <message>
        <source>Link Axis:</source>
        <translation>关联轴：</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Links this axis with another view. When linked, both views will display the same data range.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;把这个轴与另一个视图关联。关联后，两个视图显示相同的数据范围。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Percent of data to be visible when auto-scaling. It may be useful to decrease this value for data with spiky noise.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;自动缩放时可见数据的百分比。对于有尖峰噪声的数据，减小这个值可能有用。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Automatically resize this axis whenever the displayed data is changed.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;显示的数据改变时自动调整这个轴的范围。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Set the range for this axis manually. This disables automatic scaling. &lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;手动设置这个轴的范围。这会关闭自动缩放。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Manual</source>
        <translation>手动</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Minimum value to display for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;这个轴显示的最小值。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Maximum value to display for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;这个轴显示的最大值。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Inverts the display of this axis. (+y points downward instead of upward)&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;反转这个轴的显示方向。（+y 朝下而不是朝上）&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Invert Axis</source>
        <translation>反转轴</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;Enables mouse interaction (panning, scaling) for this axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;允许用鼠标操作这个轴（平移、缩放）。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Mouse Enabled</source>
        <translation>启用鼠标</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;When checked, the axis will only auto-scale to data that is visible along the orthogonal axis.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;勾选后，这个轴只根据另一个轴上可见的数据自动缩放。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Visible Data Only</source>
        <translation>仅可见数据</translation>
    </message>
    <message>
        <source>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;When checked, the axis will automatically pan to center on the current data, but the scale along this axis will not change.&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</source>
        <translation>&lt;html&gt;&lt;head/&gt;&lt;body&gt;&lt;p&gt;勾选后，这个轴会自动平移到以当前数据为中心，但不改变这个轴的缩放。&lt;/p&gt;&lt;/body&gt;&lt;/html&gt;</translation>
    </message>
    <message>
        <source>Auto Pan Only</source>
        <translation>仅自动平移</translation>
    </message>
    <message>
        <source>Display averages of the curves displayed in this plot. The parameter list allows you to choose parameters to average over (if any are available).</source>
        <translation>显示图中各曲线的平均。参数列表可用来选择在哪些参数上求平均（如果有的话）。</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Plot only the portion of each curve that is visible. This assumes X values are uniformly spaced.</source>
        <translation>只绘制每条曲线可见的部分。这假定 X 值是等间距的。</translation>
    </message>
    <message>
        <source>Clip to View</source>
        <translation>裁剪到视图</translation>
    </message>
    <message>
        <source>If multiple curves are displayed in this plot, check this box to limit the number of traces that are displayed.</source>
        <translation>图中显示多条曲线时，勾选此项可限制显示的曲线条数。</translation>
    </message>
    <message>
        <source>Max Traces:</source>
        <translation>最多曲线数：</translation>
    </message>
    <message>
        <source>Downsample</source>
        <translation>降采样</translation>
    </message>
    <message>
        <source>Downsample by drawing a saw wave that follows the min and max of the original data. This method produces the best visual representation of the data but is slower.</source>
        <translation>通过绘制跟随原始数据最小值和最大值的锯齿波来降采样。这种方法的视觉效果最好，但较慢。</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>If multiple curves are displayed in this plot, check &quot;Max Traces&quot; and set this value to limit the number of traces that are displayed.</source>
        <translation>图中显示多条曲线时，勾选“最多曲线数”并设置这个值，可限制显示的曲线条数。</translation>
    </message>
    <message>
        <source>If MaxTraces is checked, remove curves from memory after they are hidden (saves memory, but traces can not be un-hidden).</source>
        <translation>勾选“最多曲线数”时，曲线隐藏后即从内存中删除（节省内存，但无法再显示出来）。</translation>
    </message>
    <message>
        <source>Forget hidden traces</source>
        <translation>丢弃隐藏的曲线</translation>
    </message>
    <message>
        <source>Downsample by taking the mean of N samples.</source>
        <translation>取 N 个样本的平均来降采样。</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>Downsample by taking the first of N samples. This method is fastest and least accurate.</source>
        <translation>取 N 个样本中的第一个来降采样。这种方法最快，也最不精确。</translation>
    </message>
    <message>
        <source>Subsample</source>
        <translation>抽样</translation>
    </message>
    <message>
        <source>Automatically downsample data based on the visible range. This assumes X values are uniformly spaced.</source>
        <translation>根据可见范围自动降采样。这假定 X 值是等间距的。</translation>
    </message>
    <message>
        <source>Downsample data before plotting. (plot every Nth sample)</source>
        <translation>绘图前先降采样。（每 N 个样本画一个）</translation>
    </message>
    <message>
        <source>Log X</source>
        <translation>对数 X</translation>
    </message>
    <message>
        <source>Power Spectrum (FFT)</source>
        <translation>功率谱（FFT）</translation>
    </message>
    <message>
        <source>Log Y</source>
        <translation>对数 Y</translation>
    </message>
    <message>
        <source>Subtract Mean</source>
        <translation>减去均值</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>数据点</translation>
    </message>
    <message>
        <source>Show X Grid</source>
        <translation>显示 X 网格</translation>
    </message>
    <message>
        <source>Show Y Grid</source>
        <translation>显示 Y 网格</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>透明度</translation>
    </message>
</context>
<context>
    <name>FormControls</name>
    <message>
        <source>{value} is not one of {allowed}</source>
        <translation>{value} 不是 {allowed} 之一</translation>
    </message>
    <message>
        <source>{value} is not true or false</source>
        <translation>{value} 不是 true 或 false</translation>
    </message>
    <message>
        <source>{value} is not a number</source>
        <translation>{value} 不是数字</translation>
    </message>
    <message>
        <source>{value} is not a whole number</source>
        <translation>{value} 不是整数</translation>
    </message>
    <message>
        <source>{value} is not between {low} and {high}</source>
        <translation>{value} 不在 {low} 与 {high} 之间</translation>
    </message>
</context>
<context>
    <name>GraphicsScene</name>
    <message>
        <source>Export...</source>
        <translation>导出...</translation>
    </message>
</context>
<context>
    <name>HeadSummaryView</name>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>offset</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>at offset</source>
        <translation>偏移处权重</translation>
    </message>
    <message>
        <source>special</source>
        <translation>特殊词元</translation>
    </message>
    <message>
        <source>previous</source>
        <translation>前一个</translation>
    </message>
    <message>
        <source>same</source>
        <translation>自身</translation>
    </message>
    <message>
        <source>next</source>
        <translation>后一个</translation>
    </message>
    <message>
        <source>first</source>
        <translation>第一个</translation>
    </message>
    <message>
        <source>last</source>
        <translation>最后一个</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>归纳</translation>
    </message>
    <message>
        <source>alignment</source>
        <translation>对齐</translation>
    </message>
    <message>
        <source>loaded data, first N pairs</source>
        <translation>已加载的数据，前 N 个句子对</translation>
    </message>
    <message>
        <source>the Inspect tab&apos;s text</source>
        <translation>“检查”标签页中的文本</translation>
    </message>
    <message>
        <source>a text file (one text per line)…</source>
        <translation>文本文件（每行一段文本）…</translation>
    </message>
    <message>
        <source>A Hugging Face model reads the file&apos;s lines as written; each line is one text, or source&lt;TAB&gt;target</source>
        <translation>Hugging Face 模型按原样读取文件的各行；每行是一段文本，或 源&lt;TAB&gt;目标</translation>
    </message>
    <message>
        <source>N = </source>
        <translation>N = </translation>
    </message>
    <message>
        <source>Summarize heads</source>
        <translation>汇总各头</translation>
    </message>
    <message>
        <source> Warning: {unknown} of {total} tokens ({share:.1f} %) are the unknown token {token}: the text is not read as the model was trained, or the tokenizer is not the model&apos;s.</source>
        <translation> 警告：{total} 个词元中有 {unknown} 个（{share:.1f} %）是未知词元 {token}：文本的读法与模型训练时不同，或分词器不属于该模型。</translation>
    </message>
    <message>
        <source>Summarize every head over a set of sentences.</source>
        <translation>在一组句子上汇总每个头的表现。</translation>
    </message>
    <message>
        <source>map of</source>
        <translation>图：</translation>
    </message>
    <message>
        <source>Summarizing every head over {n} sentence pair(s)…</source>
        <translation>正在 {n} 个句子对上汇总每个头…</translation>
    </message>
    <message>
        <source>Texts</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>Texts (*.txt *.tsv *.zip);;All files (*)</source>
        <translation>文本 (*.txt *.tsv *.zip);;所有文件 (*)</translation>
    </message>
    <message>
        <source>{heads} heads over {n} sentence pair(s){skipped}. Sort a column; an offset of −1 with a high weight marks a previous-token head, a high &apos;first&apos; an attention sink, high &apos;induction&apos; an induction head.</source>
        <translation>{n} 个句子对上的 {heads} 个头{skipped}。可按列排序：偏移为 −1 且权重高的是前一词元头，“第一个”高的是注意力汇点（attention sink），“归纳”高的是归纳头。</translation>
    </message>
    <message>
        <source> · {n} sentence(s) skipped</source>
        <translation> · 跳过了 {n} 个句子</translation>
    </message>
    <message>
        <source>Could not summarize the heads: {why}</source>
        <translation>无法汇总各头：{why}</translation>
    </message>
</context>
<context>
    <name>HeatmapGridWidget</name>
    <message>
        <source>{title}: {row} → {col} = {value:.4g} (masked)</source>
        <translation>{title}：{row} → {col} = {value:.4g}（已掩蔽）</translation>
    </message>
</context>
<context>
    <name>HeatmapWidget</name>
    <message>
        <source>{row} → {col}: {value:.4g} (masked)</source>
        <translation>{row} → {col}：{value:.4g}（已掩蔽）</translation>
    </message>
</context>
<context>
    <name>HistoryScrubber</name>
    <message>
        <source>Replay how the attention evolved: every kept snapshot, oldest on the left</source>
        <translation>回放注意力的演变：保留下来的每个快照，最早的在最左边</translation>
    </message>
    <message>
        <source>live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Show the newest snapshot as training goes</source>
        <translation>训练时显示最新的快照</translation>
    </message>
    <message>
        <source>no snapshots yet</source>
        <translation>还没有快照</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
</context>
<context>
    <name>InspectState</name>
    <message>
        <source>the studio&apos;s model</source>
        <translation>工作室中的模型</translation>
    </message>
    <message>
        <source>the studio&apos;s model ({origin})</source>
        <translation>工作室中的模型（{origin}）</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>正在打开 {name}…</translation>
    </message>
    <message>
        <source>there is no inspection to take the head from</source>
        <translation>没有可从中取出这个头的检查结果</translation>
    </message>
    <message>
        <source>No model to inspect: open a Hugging Face model folder (Model → Open Hugging Face model folder…), open a saved model, or train one in the Transformer studio.</source>
        <translation>没有可检查的模型：请打开一个 Hugging Face 模型文件夹（模型 → 打开 Hugging Face 模型文件夹…）、打开已保存的模型，或者在 Transformer 工作室中训练一个。</translation>
    </message>
    <message>
        <source>Inspecting {name}: {summary}</source>
        <translation>正在检查 {name}：{summary}</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>该模型</translation>
    </message>
    <message>
        <source>Could not open {name}: {error}</source>
        <translation>无法打开 {name}：{error}</translation>
    </message>
    <message>
        <source>{unknown} of {total} tokens ({share:.1f} %) are the unknown token {token}: the text is not read as the model was trained (case, script, alphabet), or the tokenizer is not the model&apos;s</source>
        <translation>{total} 个词元中有 {unknown} 个（{share:.1f} %）是未知词元 {token}：文本的读法与模型训练时不同（大小写、文字、字母表），或分词器不属于该模型</translation>
    </message>
    <message>
        <source>Could not inspect the text: {error}</source>
        <translation>无法检查该文本：{error}</translation>
    </message>
</context>
<context>
    <name>InspectView</name>
    <message>
        <source>No model to inspect yet: Model → Open Hugging Face model folder… (or drop a folder holding config.json here), open a saved model, or train one in the Transformer studio.</source>
        <translation>还没有可检查的模型：模型 → 打开 Hugging Face 模型文件夹…（或把含有 config.json 的文件夹拖到这里）、打开已保存的模型，或者在 Transformer 工作室中训练一个。</translation>
    </message>
    <message>
        <source>The attention grid appears here once a text is inspected.</source>
        <translation>检查一段文本后，注意力网格会显示在这里。</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>贪心搜索</translation>
    </message>
    <message>
        <source>beam</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>{tokens} tokens · {seconds:.2f} s · full maps, {size}</source>
        <translation>{tokens} 个词元 · {seconds:.2f} 秒 · 完整的注意力图，{size}</translation>
    </message>
    <message>
        <source>{tokens} tokens · {seconds:.2f} s · pooled thumbnails (heads open at full size on demand), {size}</source>
        <translation>{tokens} 个词元 · {seconds:.2f} 秒 · 池化的缩略图（打开某个头时按需计算全尺寸），{size}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{method} output:&lt;/b&gt; {text}</source>
        <translation>&lt;b&gt;{method}输出：&lt;/b&gt;{text}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{method} output:&lt;/b&gt; {text} (stopped at the length limit)</source>
        <translation>&lt;b&gt;{method}输出：&lt;/b&gt;{text}（达到长度上限而停止）</translation>
    </message>
    <message>
        <source>The model the text is read by</source>
        <translation>读入文本的模型</translation>
    </message>
    <message>
        <source>source text (an encoder–decoder translates it; GPT-2 continues it)</source>
        <translation>源文本（编码器-解码器模型会翻译它；GPT-2 会续写它）</translation>
    </message>
    <message>
        <source>optional target: teacher-forced (none: the model&apos;s own output)</source>
        <translation>可选的目标文本：以强制教学方式输入（不填：使用模型自己的输出）</translation>
    </message>
    <message>
        <source>Inspect</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>One forward pass: every head&apos;s attention for this text</source>
        <translation>一次前向传播：这段文本在每个头上的注意力</translation>
    </message>
    <message>
        <source>width </source>
        <translation>宽度 </translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Translate (or continue) the source and show the attention of the output</source>
        <translation>翻译（或续写）源文本，并显示输出的注意力</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt; · {summary}</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt; · {summary}</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt; · {summary}, reads at most {count:,} tokens</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt; · {summary}，最多读取 {count:,} 个词元</translation>
    </message>
    <message>
        <source>An encoder-only model does not generate text</source>
        <translation>仅编码器模型不能生成文本</translation>
    </message>
    <message>
        <source>Computing every head&apos;s attention…</source>
        <translation>正在计算每个头的注意力…</translation>
    </message>
</context>
<context>
    <name>InspectorBody</name>
    <message>
        <source>Inspect</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Attention detail</source>
        <translation>注意力细节</translation>
    </message>
    <message>
        <source>Debug</source>
        <translation>调试</translation>
    </message>
</context>
<context>
    <name>InspectorMenu</name>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>Open &amp;Hugging Face model folder…</source>
        <translation>打开 Hugging Face 模型文件夹(&amp;H)…</translation>
    </message>
    <message>
        <source>Open &amp;saved model…</source>
        <translation>打开已保存的模型(&amp;S)…</translation>
    </message>
    <message>
        <source>Open &amp;run directory…</source>
        <translation>打开训练记录目录(&amp;R)…</translation>
    </message>
    <message>
        <source>Inspect a model trained elsewhere: a folder with config.json, weights and a tokenizer (BERT, RoBERTa, GPT-2, Marian, BART, mBART, T5; local files only)</source>
        <translation>检查在别处训练的模型：一个含有 config.json、权重和分词器的文件夹（BERT、RoBERTa、GPT-2、Marian、BART、mBART、T5；仅限本地文件）</translation>
    </message>
    <message>
        <source>Inspect a model saved by the studio or the command line</source>
        <translation>检查由工作室或命令行保存的模型</translation>
    </message>
    <message>
        <source>Inspect the latest model of a run directory</source>
        <translation>检查训练记录目录中最新的模型</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Attention Explorer model (*{suffix})</source>
        <translation>Attention Explorer 模型 (*{suffix})</translation>
    </message>
    <message>
        <source>Open run directory</source>
        <translation>打开训练记录目录</translation>
    </message>
</context>
<context>
    <name>InspectorPanel</name>
    <message>
        <source>softmax(&lt;i&gt;QK&lt;/i&gt;&lt;sup&gt;T&lt;/sup&gt;/√&lt;i&gt;d&lt;/i&gt;)&lt;i&gt;V&lt;/i&gt; in every head of every layer of any model: the studio&apos;s, a saved one, a run&apos;s, a Hugging Face model&apos;s</source>
        <translation>任意模型每一层的每个头都计算 softmax(&lt;i&gt;QK&lt;/i&gt;&lt;sup&gt;T&lt;/sup&gt;/√&lt;i&gt;d&lt;/i&gt;)&lt;i&gt;V&lt;/i&gt;：工作室的模型、已保存的模型、训练记录中的模型或 Hugging Face 模型</translation>
    </message>
    <message>
        <source>Open a model (Model menu, or drop a folder or file here): a Hugging Face folder (BERT, GPT-2, Marian, T5 …), a model saved by the studio or the command line, a run directory, or the studio&apos;s own model once it is paused or finished. &lt;b&gt;Inspect&lt;/b&gt; reads every head&apos;s attention for a text; click a thumbnail for a large view and a cell to see how its weight is computed. &lt;b&gt;Debug&lt;/b&gt; switches heads off, shows each decoding step&apos;s probabilities, draws the beam search tree, compares two models and summarizes what each head does.</source>
        <translation>打开一个模型（模型菜单，或把文件夹或文件拖到这里）：Hugging Face 模型文件夹（BERT、GPT-2、Marian、T5 …）、由工作室或命令行保存的模型、训练记录目录，或者工作室自己的模型（暂停或训练完成之后）。&lt;b&gt;检查&lt;/b&gt;读出一段文本在每个头上的注意力；点击缩略图可放大查看，点击格子可看到它的注意力权重是如何算出来的。&lt;b&gt;调试&lt;/b&gt;可以关闭某些头，显示每个解码时间步的概率，画出束搜索树，比较两个模型，并总结每个头的作用。</translation>
    </message>
    <message>
        <source>Attention grid</source>
        <translation>注意力网格</translation>
    </message>
</context>
<context>
    <name>KernelRegressionControls</name>
    <message>
        <source>Train w</source>
        <translation>训练 w</translation>
    </message>
    <message>
        <source>nonparametric</source>
        <translation>非参数</translation>
    </message>
    <message>
        <source>parametric</source>
        <translation>带参数</translation>
    </message>
    <message>
        <source>w: not trained yet</source>
        <translation>w：尚未训练</translation>
    </message>
    <message>
        <source>kernel K(d / h)</source>
        <translation>核 K(d / h)</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>training points</source>
        <translation>训练点</translation>
    </message>
    <message>
        <source>test points</source>
        <translation>测试点</translation>
    </message>
    <message>
        <source>noise σ</source>
        <translation>噪声 σ</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>核</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>核</translation>
    </message>
    <message>
        <source>bandwidth h (log scale):</source>
        <translation>带宽 h（对数刻度）：</translation>
    </message>
    <message>
        <source>Parametric (learnable w)</source>
        <translation>带参数（可学习的 w）</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>heatmap shows</source>
        <translation>热图显示</translation>
    </message>
</context>
<context>
    <name>KernelRegressionPanel</name>
    <message>
        <source>Fit</source>
        <translation>拟合</translation>
    </message>
    <message>
        <source>Attention weights</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>Weights of one test point</source>
        <translation>一个测试点的权重</translation>
    </message>
    <message>
        <source>Parametric loss</source>
        <translation>带参数模型的损失</translation>
    </message>
    <message>
        <source>each cell: mean of {rows} test points, sum of {cols} training points</source>
        <translation>每个格子：{rows} 个测试点的平均、{cols} 个训练点的和</translation>
    </message>
    <message>
        <source>each cell: mean of {rows} test points</source>
        <translation>每个格子：{rows} 个测试点的平均</translation>
    </message>
    <message>
        <source>each cell: sum of {cols} training points</source>
        <translation>每个格子：{cols} 个训练点的和</translation>
    </message>
    <message>
        <source>loss per epoch (parametric)</source>
        <translation>每轮损失（带参数）</translation>
    </message>
    <message>
        <source>learned w = {w:.4g} (h = 1/|w| = {h:.3g})</source>
        <translation>学到的 w = {w:.4g}（h = 1/|w| = {h:.3g}）</translation>
    </message>
    <message>
        <source>The parametric model needs at least two training points (leave-one-out).</source>
        <translation>带参数模型至少需要两个训练点（留一法）。</translation>
    </message>
    <message>
        <source>Training…</source>
        <translation>训练中…</translation>
    </message>
    <message>
        <source>Training w failed: {message}</source>
        <translation>训练 w 失败：{message}</translation>
    </message>
    <message>
        <source>Train w</source>
        <translation>训练 w</translation>
    </message>
    <message>
        <source>Parametric kernel regression: loss {loss:.4g}, w = {w:.4g}</source>
        <translation>带参数核回归：损失 {loss:.4g}，w = {w:.4g}</translation>
    </message>
    <message>
        <source>The parametric model is still training.</source>
        <translation>带参数模型仍在训练。</translation>
    </message>
    <message>
        <source>&amp;alpha;(&lt;i&gt;x&lt;/i&gt;, &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;) = K(u&lt;sub&gt;&lt;i&gt;i&lt;/i&gt;&lt;/sub&gt;) / &amp;Sigma;&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; K(u&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;): an equal share among the points with |&lt;i&gt;x&lt;/i&gt; &amp;minus; &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;| &amp;lt; &lt;i&gt;h&lt;/i&gt;</source>
        <translation>&amp;alpha;(&lt;i&gt;x&lt;/i&gt;, &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;) = K(u&lt;sub&gt;&lt;i&gt;i&lt;/i&gt;&lt;/sub&gt;) / &amp;Sigma;&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt; K(u&lt;sub&gt;&lt;i&gt;j&lt;/i&gt;&lt;/sub&gt;)：满足 |&lt;i&gt;x&lt;/i&gt; &amp;minus; &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;| &amp;lt; &lt;i&gt;h&lt;/i&gt; 的点平分权重</translation>
    </message>
    <message>
        <source>K(&lt;i&gt;u&lt;/i&gt;) = 1 if |&lt;i&gt;u&lt;/i&gt;| &amp;lt; 1, else 0</source>
        <translation>当 |&lt;i&gt;u&lt;/i&gt;| &amp;lt; 1 时 K(&lt;i&gt;u&lt;/i&gt;) = 1，否则为 0</translation>
    </message>
    <message>
        <source>&amp;alpha;(&lt;i&gt;x&lt;/i&gt;, &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;) = 1/&lt;i&gt;n&lt;/i&gt;: every prediction is the mean of the &lt;i&gt;y&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;</source>
        <translation>&amp;alpha;(&lt;i&gt;x&lt;/i&gt;, &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;) = 1/&lt;i&gt;n&lt;/i&gt;：每个预测都是 &lt;i&gt;y&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt; 的平均值</translation>
    </message>
    <message>
        <source> &amp;nbsp;&amp;nbsp; (parametric, always Gaussian: 1/&lt;i&gt;h&lt;/i&gt; &amp;rarr; learnable &lt;i&gt;w&lt;/i&gt;)</source>
        <translation> &amp;nbsp;&amp;nbsp;（带参数版本总用高斯核：1/&lt;i&gt;h&lt;/i&gt; &amp;rarr; 可学习的 &lt;i&gt;w&lt;/i&gt;）</translation>
    </message>
    <message>
        <source>gaussian</source>
        <translation>高斯核</translation>
    </message>
    <message>
        <source>boxcar</source>
        <translation>矩形核</translation>
    </message>
    <message>
        <source>constant</source>
        <translation>常数核</translation>
    </message>
    <message>
        <source>epanechnikov</source>
        <translation>Epanechnikov 核</translation>
    </message>
    <message>
        <source>Nadaraya–Watson regression predicts at a query &lt;i&gt;x&lt;/i&gt; by averaging the training targets &lt;i&gt;y&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;, each weighted by how close its key &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt; is to the query. The weights come from a kernel K((&lt;i&gt;x&lt;/i&gt; &amp;minus; &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;)/&lt;i&gt;h&lt;/i&gt;) normalised to sum to one, so every row of the heatmap is an attention distribution over the training points. A small bandwidth &lt;i&gt;h&lt;/i&gt; copies the nearest point (a wiggly curve); a large one averages everything (a flat line at the mean). Drag the slider or a training point and watch the fit and the weights follow; click the plot to see one query&apos;s weights. &lt;b&gt;Train w&lt;/b&gt; makes 1/&lt;i&gt;h&lt;/i&gt; a parameter learned by SGD on leave-one-out keys, as the book does: it learns a narrow kernel, so its curve is sharper and less smooth.</source>
        <translation>Nadaraya-Watson 核回归在查询 &lt;i&gt;x&lt;/i&gt; 处的预测，是训练目标 &lt;i&gt;y&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt; 的加权平均，权重取决于各自的键 &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt; 离查询有多近。权重来自核 K((&lt;i&gt;x&lt;/i&gt; &amp;minus; &lt;i&gt;x&lt;sub&gt;i&lt;/sub&gt;&lt;/i&gt;)/&lt;i&gt;h&lt;/i&gt;)，并归一化使其和为 1，所以热图的每一行都是训练点上的一个注意力分布。带宽 &lt;i&gt;h&lt;/i&gt; 很小时，预测照搬最近的点（曲线弯弯曲曲）；带宽很大时，预测对所有点取平均（一条位于均值处的平线）。拖动滑块或某个训练点，看拟合曲线和权重如何随之变化；点击图，查看某个查询的权重。&lt;b&gt;训练 w&lt;/b&gt; 像书中那样把 1/&lt;i&gt;h&lt;/i&gt; 变成可学习参数，用随机梯度下降（SGD）在留一法的键上学习：它学到的核很窄，所以曲线更尖锐、更不平滑。</translation>
    </message>
</context>
<context>
    <name>KernelRegressionPlots</name>
    <message>
        <source>Nadaraya–Watson fit</source>
        <translation>Nadaraya-Watson 拟合</translation>
    </message>
    <message>
        <source>truth 2 sin x + x^0.8</source>
        <translation>真实函数 2 sin x + x^0.8</translation>
    </message>
    <message>
        <source>nonparametric fit</source>
        <translation>非参数拟合</translation>
    </message>
    <message>
        <source>parametric fit</source>
        <translation>带参数拟合</translation>
    </message>
    <message>
        <source>training points (drag me)</source>
        <translation>训练点（可拖动）</translation>
    </message>
    <message>
        <source>attention weights</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>test x</source>
        <translation>测试 x</translation>
    </message>
    <message>
        <source>train x</source>
        <translation>训练 x</translation>
    </message>
    <message>
        <source>weights of one test point</source>
        <translation>一个测试点的权重</translation>
    </message>
    <message>
        <source>training x</source>
        <translation>训练 x</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>loss per epoch</source>
        <translation>每轮损失</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Σ squared error</source>
        <translation>Σ 平方误差</translation>
    </message>
    <message>
        <source>weights of test point x = {x:.2f}</source>
        <translation>测试点 x = {x:.2f} 的权重</translation>
    </message>
</context>
<context>
    <name>KindNames</name>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>cross</source>
        <translation>编码器-解码器</translation>
    </message>
</context>
<context>
    <name>LayerDrawing</name>
    <message numerus="yes">
        <source>CNN (k = {k}, layers: {layers}): x₁ → position {position} in %n hop(s)</source>
        <translation>
            <numerusform>CNN（k = {k}，{layers} 层）：x₁ → 位置 {position}，共 %n 跳</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{name}: x₁ → position {position} in %n hop(s)</source>
        <translation>
            <numerusform>{name}：x₁ → 位置 {position}，共 %n 跳</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <source>Could not read {path}: {error}</source>
        <translation>无法读取 {path}：{error}</translation>
    </message>
    <message>
        <source>The file is not valid JSON: {error}</source>
        <translation>该文件不是有效的 JSON：{error}</translation>
    </message>
    <message>
        <source>The file is not an Attention Explorer lesson.</source>
        <translation>该文件不是 Attention Explorer 课件。</translation>
    </message>
    <message>
        <source>The lesson has no valid version number (found {value}).</source>
        <translation>课件没有有效的版本号（读到的是 {value}）。</translation>
    </message>
    <message>
        <source>{where}: unknown field</source>
        <translation>{where}：未知字段</translation>
    </message>
    <message>
        <source>{where}: {value} is not one of {allowed}</source>
        <translation>{where}：{value} 不是 {allowed} 之一</translation>
    </message>
    <message>
        <source>{where}: {value} is not between {low} and {high}</source>
        <translation>{where}：{value} 不在 {low} 和 {high} 之间</translation>
    </message>
    <message>
        <source>{where}: not an object</source>
        <translation>{where}：不是对象</translation>
    </message>
    <message>
        <source>{where}: this version has no such panel</source>
        <translation>{where}：本版本没有这个面板</translation>
    </message>
    <message>
        <source>{where}: {type} is not a setting value</source>
        <translation>{where}：{type} 不是有效的设置值</translation>
    </message>
    <message>
        <source>{where}: not valid base64</source>
        <translation>{where}：不是有效的 base64</translation>
    </message>
    <message>
        <source>{where}: {value} is not a file name</source>
        <translation>{where}：{value} 不是文件名</translation>
    </message>
    <message>
        <source>{where}: {value} is not a run directory</source>
        <translation>{where}：{value} 不是训练记录目录</translation>
    </message>
    <message>
        <source>{where}: {value} is not a replay speed</source>
        <translation>{where}：{value} 不是有效的回放速度</translation>
    </message>
</context>
<context>
    <name>LessonController</name>
    <message>
        <source>panels.{key}.settings.{name}: no JSON form</source>
        <translation>panels.{key}.settings.{name}：无法表示为 JSON</translation>
    </message>
    <message>
        <source>panels.studio.{field}: {file} was not found</source>
        <translation>panels.studio.{field}：找不到 {file}</translation>
    </message>
    <message>
        <source>panels.studio.{field}: the studio did not open {file}</source>
        <translation>panels.studio.{field}：工作室未能打开 {file}</translation>
    </message>
</context>
<context>
    <name>LiveAttention</name>
    <message>
        <source>Start training (or open a saved model) to see every layer&apos;s and head&apos;s attention here.</source>
        <translation>开始训练（或打开已保存的模型），在这里查看每一层、每个头的注意力。</translation>
    </message>
    <message>
        <source>step {step}, epoch {epoch}</source>
        <translation>第 {step} 步，第 {epoch} 轮</translation>
    </message>
    <message>
        <source>no snapshots yet</source>
        <translation>还没有快照</translation>
    </message>
    <message>
        <source>snapshot {number}/{count} · {when}</source>
        <translation>快照 {number}/{count} · {when}</translation>
    </message>
</context>
<context>
    <name>LiveSettings</name>
    <message>
        <source>Change while training</source>
        <translation>训练中修改</translation>
    </message>
    <message>
        <source>learning rate (base)</source>
        <translation>学习率（基准）</translation>
    </message>
    <message>
        <source>gradient clip (0 = off)</source>
        <translation>梯度裁剪（0 = 关闭）</translation>
    </message>
    <message>
        <source>dropout</source>
        <translation>暂退法（dropout）</translation>
    </message>
    <message>
        <source>Apply at the next step</source>
        <translation>从下一步起生效</translation>
    </message>
    <message>
        <source>The training process takes the new values before its next step; the loss curve marks the change. With a schedule, the learning rate set here is the base the schedule scales.</source>
        <translation>训练进程在下一步之前采用新值；损失曲线会标出这次修改。使用学习率调度时，这里设置的学习率是调度所缩放的基准值。</translation>
    </message>
    <message>
        <source>learning rate now: {rate}</source>
        <translation>当前学习率：{rate}</translation>
    </message>
    <message>
        <source>learning rate now: –</source>
        <translation>当前学习率：–</translation>
    </message>
</context>
<context>
    <name>LossPlotWidget</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>lr {value}</source>
        <translation>学习率 {value}</translation>
    </message>
    <message>
        <source>clip {value}</source>
        <translation>裁剪 {value}</translation>
    </message>
    <message>
        <source>dropout {value}</source>
        <translation>暂退法 {value}</translation>
    </message>
    <message>
        <source>loss (per token)</source>
        <translation>损失（每个词元）</translation>
    </message>
    <message>
        <source>per step</source>
        <translation>每步</translation>
    </message>
    <message>
        <source>per epoch</source>
        <translation>每轮</translation>
    </message>
    <message>
        <source>previous run</source>
        <translation>上一个训练记录</translation>
    </message>
    <message>
        <source>smoothed (EMA {weight:.2f})</source>
        <translation>平滑（EMA {weight:.2f}）</translation>
    </message>
    <message>
        <source>{axis} (this model&apos;s file holds no timings)</source>
        <translation>{axis}（该模型文件没有记录时间）</translation>
    </message>
</context>
<context>
    <name>LossView</name>
    <message>
        <source>steps</source>
        <translation>步</translation>
    </message>
    <message>
        <source>epochs</source>
        <translation>轮</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>log y</source>
        <translation>对数 y 轴</translation>
    </message>
    <message>
        <source>Exponential smoothing of the per-step loss (0 = off)</source>
        <translation>对每步损失做指数平滑（0 = 关闭）</translation>
    </message>
    <message>
        <source>x axis</source>
        <translation>x 轴</translation>
    </message>
    <message>
        <source>smoothing</source>
        <translation>平滑</translation>
    </message>
</context>
<context>
    <name>MainMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Export current plot…</source>
        <translation>导出当前图(&amp;E)…</translation>
    </message>
    <message>
        <source>Export &amp;all plots and tables…</source>
        <translation>导出全部图和表(&amp;A)…</translation>
    </message>
    <message>
        <source>Export training &amp;time-lapse…</source>
        <translation>导出训练延时动画(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Open lesson…</source>
        <translation>打开课件(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save lesson…</source>
        <translation>保存课件(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Colour-blind-safe colours</source>
        <translation>色盲友好配色(&amp;C)</translation>
    </message>
    <message>
        <source>Show formula and &amp;explanation</source>
        <translation>显示公式与说明(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Presenter mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <source>Presenter &amp;scale</source>
        <translation>演示缩放(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Lock controls</source>
        <translation>锁定控件(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Attention Explorer</source>
        <translation>关于 Attention Explorer(&amp;A)</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>{panel} — Attention Explorer</source>
        <translation>{panel} — Attention Explorer</translation>
    </message>
    <message>
        <source>Could not open the dropped file: {error}</source>
        <translation>无法打开拖入的文件：{error}</translation>
    </message>
    <message>
        <source>This panel does not open dropped files.</source>
        <translation>这个面板不接受拖入的文件。</translation>
    </message>
    <message>
        <source>Quit Attention Explorer?</source>
        <translation>退出 Attention Explorer？</translation>
    </message>
    <message>
        <source>{reasons}

Quit anyway?</source>
        <translation>{reasons}

仍要退出吗？</translation>
    </message>
</context>
<context>
    <name>MapViews</name>
    <message>
        <source>Heatmap</source>
        <translation>热图</translation>
    </message>
    <message>
        <source>Token lines</source>
        <translation>词元连线</translation>
    </message>
    <message>
        <source>A line from each query token to each key token, its opacity the weight; hover a token to see its lines alone</source>
        <translation>从每个查询词元到每个键词元画一条线，不透明度即权重；鼠标悬停在词元上只看它的连线</translation>
    </message>
</context>
<context>
    <name>MessageBanner</name>
    <message>
        <source>Close this message</source>
        <translation>关闭此消息</translation>
    </message>
</context>
<context>
    <name>ModelDiffView</name>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>B: none chosen</source>
        <translation>B：未选择</translation>
    </message>
    <message>
        <source>B from a checkpoint…</source>
        <translation>从检查点选择 B…</translation>
    </message>
    <message>
        <source>B from a folder…</source>
        <translation>从文件夹选择 B…</translation>
    </message>
    <message>
        <source>A run directory (its last checkpoint) or a Hugging Face model folder</source>
        <translation>训练记录目录（取其最后一个检查点）或 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>optional: teacher-forced target and BLEU reference</source>
        <translation>可选：以强制教学方式输入的目标文本，也作 BLEU 的参考译文</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>A is the Inspect tab&apos;s model; choose B, then Compare.</source>
        <translation>A 是“检查”标签页中的模型；选择 B，然后点击“对比”。</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation>正在对比…</translation>
    </message>
    <message>
        <source>Second model</source>
        <translation>第二个模型</translation>
    </message>
    <message>
        <source>Checkpoints (*.safetensors);;All files (*)</source>
        <translation>检查点 (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>B: opening…</source>
        <translation>B：正在打开…</translation>
    </message>
    <message>
        <source>Second model: a run directory or a model folder</source>
        <translation>第二个模型：训练记录目录或模型文件夹</translation>
    </message>
    <message>
        <source>B: &lt;b&gt;{name}&lt;/b&gt;</source>
        <translation>B：&lt;b&gt;{name}&lt;/b&gt;</translation>
    </message>
    <message>
        <source>no reference</source>
        <translation>无参考译文</translation>
    </message>
    <message>
        <source> · largest change: {kind} L{layer} h{head} (max |Δ| {m:.3f})</source>
        <translation> · 变化最大：{kind} L{layer} h{head}（最大 |Δ| {m:.3f}）</translation>
    </message>
    <message>
        <source>&lt;b&gt;A&lt;/b&gt; {a}: {ta} ({ba})&lt;br&gt;&lt;b&gt;B&lt;/b&gt; {b}: {tb} ({bb}){most}</source>
        <translation>&lt;b&gt;A&lt;/b&gt; {a}：{ta}（{ba}）&lt;br&gt;&lt;b&gt;B&lt;/b&gt; {b}：{tb}（{bb}）{most}</translation>
    </message>
    <message>
        <source>B − A per head (colour scale ±{p:.3f}, blue: less in B, red: more)</source>
        <translation>每个头的 B − A（颜色范围 ±{p:.3f}，蓝色：B 中更小，红色：更大）</translation>
    </message>
</context>
<context>
    <name>ModelFiles</name>
    <message>
        <source>opened {name} ({layers} layers, {heads} heads, {hiddens} hidden)</source>
        <translation>已打开 {name}（{layers} 层，{heads} 个头，隐藏单元数 {hiddens}）</translation>
    </message>
</context>
<context>
    <name>ModelMenu</name>
    <message>
        <source>Open sentence pairs</source>
        <translation>打开句子对</translation>
    </message>
    <message>
        <source>Sentence pairs (*.txt *.tsv *.zip);;All files (*)</source>
        <translation>句子对 (*.txt *.tsv *.zip);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Save model…</source>
        <translation>保存模型(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Open model…</source>
        <translation>打开模型(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;run…</source>
        <translation>打开训练记录(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Recent runs</source>
        <translation>最近的训练记录(&amp;R)</translation>
    </message>
    <message>
        <source>Replay the d&amp;emo run</source>
        <translation>回放演示训练记录(&amp;E)</translation>
    </message>
    <message>
        <source>Re&amp;play a run…</source>
        <translation>回放某个训练记录(&amp;P)…</translation>
    </message>
    <message>
        <source>Overlay a run&apos;s &amp;loss…</source>
        <translation>叠加某个训练记录的损失(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Clear overlaid runs</source>
        <translation>清除叠加的训练记录(&amp;C)</translation>
    </message>
    <message>
        <source>Open &amp;dataset…</source>
        <translation>打开数据集(&amp;D)…</translation>
    </message>
    <message>
        <source>Save the trained (or paused) model with its vocabularies and settings</source>
        <translation>保存训练好（或已暂停）的模型及其词表和设置</translation>
    </message>
    <message>
        <source>Open a model saved here or by the command line, to inspect and translate</source>
        <translation>打开在这里或由命令行保存的模型，用于检查和翻译</translation>
    </message>
    <message>
        <source>Open a run directory (finished, or still being trained by the command line) and follow it live</source>
        <translation>打开一个训练记录目录（已完成的，或命令行仍在训练的）并实时跟踪</translation>
    </message>
    <message>
        <source>Watch the book&apos;s model train (a run of 200 epochs recorded with this app) at any speed, without training it here</source>
        <translation>以任意速度观看书中模型的训练过程（用本程序录制的一个 200 轮训练记录），无需在本机训练</translation>
    </message>
    <message>
        <source>Replay a recorded run directory as it was trained, at any speed</source>
        <translation>按训练时的过程、以任意速度回放一个已录制的训练记录目录</translation>
    </message>
    <message>
        <source>Draw another run&apos;s loss curve over this one</source>
        <translation>把另一个训练记录的损失曲线叠加到这条曲线上</translation>
    </message>
    <message>
        <source>Attention Explorer model (*{suffix})</source>
        <translation>Attention Explorer 模型 (*{suffix})</translation>
    </message>
    <message>
        <source>Save model</source>
        <translation>保存模型</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Open run directory</source>
        <translation>打开训练记录目录</translation>
    </message>
    <message>
        <source>Replay run directory</source>
        <translation>回放训练记录目录</translation>
    </message>
    <message>
        <source>Overlay the loss of run</source>
        <translation>叠加训练记录的损失</translation>
    </message>
</context>
<context>
    <name>ModelSource</name>
    <message>
        <source>built-in (untrained)</source>
        <translation>内置（未训练）</translation>
    </message>
    <message>
        <source>the studio&apos;s model</source>
        <translation>工作室中的模型</translation>
    </message>
    <message>
        <source>a model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>the model whose blocks are shown</source>
        <translation>要查看其各个块的模型</translation>
    </message>
    <message>
        <source>seed of the untrained model&apos;s Xavier initialisation</source>
        <translation>未训练模型 Xavier 初始化的随机种子</translation>
    </message>
    <message>
        <source>no file chosen</source>
        <translation>未选择文件</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>choose a model saved by the studio or the command line</source>
        <translation>选择由工作室或命令行保存的模型</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>The studio has no model to look into yet: train (then pause or finish) or open one there, or choose the built-in model.</source>
        <translation>工作室里还没有可查看的模型：请在那里训练（然后暂停或等它完成）或打开一个模型，或者选择内置模型。</translation>
    </message>
    <message>
        <source>the studio&apos;s: {origin}</source>
        <translation>工作室的：{origin}</translation>
    </message>
    <message>
        <source>Choose a model file (Open…), or the built-in model.</source>
        <translation>请选择一个模型文件（打开…），或者选择内置模型。</translation>
    </message>
    <message>
        <source>built-in, untrained (seed {seed})</source>
        <translation>内置、未训练（随机种子 {seed}）</translation>
    </message>
    <message>
        <source>opened {name}</source>
        <translation>已打开 {name}</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Attention Explorer model (*.safetensors);;All files (*)</source>
        <translation>Attention Explorer 模型 (*.safetensors);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ModelState</name>
    <message>
        <source>Opening {name}…</source>
        <translation>正在打开 {name}…</translation>
    </message>
    <message>
        <source>There is no model to save yet (pause or finish training first).</source>
        <translation>还没有可保存的模型（请先暂停或完成训练）。</translation>
    </message>
    <message>
        <source>Could not save the model: {error}</source>
        <translation>无法保存模型：{error}</translation>
    </message>
    <message>
        <source>Saved the model to {path}.</source>
        <translation>模型已保存到 {path}。</translation>
    </message>
    <message>
        <source>Could not open the model: {error}</source>
        <translation>无法打开模型：{error}</translation>
    </message>
    <message>
        <source>The run&apos;s checkpoint could not be read yet: {error}</source>
        <translation>暂时无法读取该训练记录的检查点：{error}</translation>
    </message>
</context>
<context>
    <name>MultiHeadPanel</name>
    <message>
        <source>typed sentence</source>
        <translation>输入的句子</translation>
    </message>
    <message>
        <source>random input</source>
        <translation>随机输入</translation>
    </message>
    <message>
        <source>head&lt;sub&gt;i&lt;/sub&gt; = softmax(&lt;b&gt;QW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(q)&lt;/sup&gt; (&lt;b&gt;KW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(k)&lt;/sup&gt;)&lt;sup&gt;⊤&lt;/sup&gt; / √(d/h)) &lt;b&gt;VW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(v)&lt;/sup&gt; &amp;nbsp;&amp;nbsp; MultiHead(&lt;b&gt;Q&lt;/b&gt;, &lt;b&gt;K&lt;/b&gt;, &lt;b&gt;V&lt;/b&gt;) = [head&lt;sub&gt;1&lt;/sub&gt;, …, head&lt;sub&gt;h&lt;/sub&gt;] &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;o&lt;/sub&gt;</source>
        <translation>head&lt;sub&gt;i&lt;/sub&gt; = softmax(&lt;b&gt;QW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(q)&lt;/sup&gt; (&lt;b&gt;KW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(k)&lt;/sup&gt;)&lt;sup&gt;⊤&lt;/sup&gt; / √(d/h)) &lt;b&gt;VW&lt;/b&gt;&lt;sub&gt;i&lt;/sub&gt;&lt;sup&gt;(v)&lt;/sup&gt; &amp;nbsp;&amp;nbsp; MultiHead(&lt;b&gt;Q&lt;/b&gt;, &lt;b&gt;K&lt;/b&gt;, &lt;b&gt;V&lt;/b&gt;) = [head&lt;sub&gt;1&lt;/sub&gt;, …, head&lt;sub&gt;h&lt;/sub&gt;] &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;o&lt;/sub&gt;</translation>
    </message>
    <message>
        <source>Instead of one attention over the full hidden vector, multi-head attention cuts it into h equal slices (so num_hiddens must be divisible by num_heads), gives each slice its own query, key and value projections, and lets every head attend on its own; the heads&apos; outputs are joined and mixed by W&lt;sub&gt;o&lt;/sub&gt;. Here every word gets a fixed random embedding and the projections are random (set by the seed), so the patterns show what differently projected heads can look at, not what a trained model learned; the Transformer studio shows trained heads. Without positional encoding, equal words attend identically: tick the box to add it.</source>
        <translation>多头注意力不是在整个隐藏向量上做一次注意力，而是把它切成 h 等份（所以 num_hiddens 必须能被 num_heads 整除），每一份有自己的查询、键和值投影，每个头各自计算注意力；各头的输出拼接起来，再由 W&lt;sub&gt;o&lt;/sub&gt; 混合。这里每个词有一个固定的随机嵌入，投影也是随机的（由随机种子决定），所以这些图案展示的是投影不同的头能关注什么，而不是训练好的模型学到了什么；训练过的头请看 Transformer 工作室。没有位置编码时，相同的词关注的方式完全一样：勾选复选框即可加上位置编码。</translation>
    </message>
    <message>
        <source>num_hiddens: size of each token&apos;s hidden vector</source>
        <translation>num_hiddens：每个词元的隐藏向量长度</translation>
    </message>
    <message>
        <source>num_heads: into how many slices the hidden vector is cut</source>
        <translation>num_heads：隐藏向量被切成几份</translation>
    </message>
    <message>
        <source>attend over a typed sentence or random vectors</source>
        <translation>在输入的句子还是随机向量上计算注意力</translation>
    </message>
    <message>
        <source>words and punctuation become tokens (at most 40)</source>
        <translation>单词和标点都成为词元（最多 40 个）</translation>
    </message>
    <message>
        <source>number of random input vectors</source>
        <translation>随机输入向量的个数</translation>
    </message>
    <message>
        <source>seed of the embeddings and projections</source>
        <translation>嵌入和投影的随机种子</translation>
    </message>
    <message>
        <source>add positional encoding</source>
        <translation>加上位置编码</translation>
    </message>
    <message>
        <source>add the sinusoidal P (§11.6) to the embeddings first</source>
        <translation>先把正弦位置编码 P（§10.6）加到嵌入上</translation>
    </message>
    <message>
        <source>stretch colours to the data</source>
        <translation>按数据拉伸颜色范围</translation>
    </message>
    <message>
        <source>colour range = smallest..largest weight instead of 0..1</source>
        <translation>颜色范围取最小到最大权重，而不是 0 到 1</translation>
    </message>
    <message>
        <source>Heads and input</source>
        <translation>头和输入</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>num_hiddens = {hiddens} splits evenly into {choices} heads.</source>
        <translation>num_hiddens = {hiddens} 可以平均分成 {choices} 个头。</translation>
    </message>
    <message>
        <source>each head sees &lt;b&gt;{size}&lt;/b&gt; of the {hiddens} dimensions; its scores are divided by √{size}.&lt;br&gt;Click a cell to outline that query in every head.</source>
        <translation>每个头看到 {hiddens} 维中的 &lt;b&gt;{size}&lt;/b&gt; 维；它的评分除以 √{size}。&lt;br&gt;点击一个格子，可在每个头中框出该查询。</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>average of {count} heads</source>
        <translation>{count} 个头的平均</translation>
    </message>
    <message>
        <source>average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>{head}: &apos;{query}&apos; attends most to &apos;{key}&apos; ({weight:.2f})</source>
        <translation>{head}：&apos;{query}&apos; 最关注 &apos;{key}&apos;（{weight:.2f}）</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头</translation>
    </message>
</context>
<context>
    <name>NormView</name>
    <message>
        <source>The book&apos;s X: &lt;b&gt;LayerNorm&lt;/b&gt; normalizes each row (solid outline: one example, over its features), &lt;b&gt;BatchNorm&lt;/b&gt; each column (dashed: one feature, over the batch).</source>
        <translation>书中的 X：&lt;b&gt;LayerNorm&lt;/b&gt; 对每一行归一化（实线框：一个样本，在其特征上），&lt;b&gt;BatchNorm&lt;/b&gt; 对每一列归一化（虚线框：一个特征，在整个批量上）。</translation>
    </message>
    <message>
        <source>Below: {batch} sentences padded to {steps} steps ({pads} of {rows} rows are padding, hatched). BatchNorm averages a feature over all {rows} rows, padding included, which moves its output for real tokens by up to &lt;b&gt;{bn_shift:.2f}&lt;/b&gt;; LayerNorm&apos;s moves by &lt;b&gt;{ln_shift:.0f}&lt;/b&gt;. Click a cell to move the outlines.</source>
        <translation>下方：{batch} 个句子填充到 {steps} 步（{rows} 行中有 {pads} 行是填充，带斜线）。BatchNorm 在全部 {rows} 行上（包括填充）对一个特征求平均，使真实词元的输出最多偏移 &lt;b&gt;{bn_shift:.2f}&lt;/b&gt;；LayerNorm 的输出偏移 &lt;b&gt;{ln_shift:.0f}&lt;/b&gt;。点击一个格子可移动框线。</translation>
    </message>
</context>
<context>
    <name>PanelStack</name>
    <message>
        <source>Opening {title}…</source>
        <translation>正在打开“{title}”…</translation>
    </message>
    <message>
        <source>{target} is not a BasePanel.</source>
        <translation>{target} 不是 BasePanel。</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Queries, keys and values</source>
        <translation>查询、键和值</translation>
    </message>
    <message>
        <source>Kernel regression</source>
        <translation>核回归</translation>
    </message>
    <message>
        <source>Scoring functions</source>
        <translation>注意力评分函数</translation>
    </message>
    <message>
        <source>Multi-head attention</source>
        <translation>多头注意力</translation>
    </message>
    <message>
        <source>CNN vs RNN vs attention</source>
        <translation>CNN、RNN 与自注意力</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Transformer anatomy</source>
        <translation>Transformer 解剖</translation>
    </message>
    <message>
        <source>Transformer studio</source>
        <translation>Transformer 工作室</translation>
    </message>
    <message>
        <source>§11.1 Queries, keys, and values (attention cues)</source>
        <translation>§10.1 注意力提示：查询、键和值</translation>
    </message>
    <message>
        <source>§11.2 Attention pooling by similarity (Nadaraya–Watson)</source>
        <translation>§10.2 注意力池化（注意力汇聚）：Nadaraya-Watson 核回归</translation>
    </message>
    <message>
        <source>§11.3 Attention scoring functions</source>
        <translation>§10.3 注意力评分函数</translation>
    </message>
    <message>
        <source>§11.5 Multi-head attention</source>
        <translation>§10.5 多头注意力</translation>
    </message>
    <message>
        <source>§11.6.2 Comparing CNNs, RNNs, and self-attention</source>
        <translation>§10.6.2 比较卷积神经网络、循环神经网络和自注意力</translation>
    </message>
    <message>
        <source>§11.6 Self-attention and positional encoding</source>
        <translation>§10.6 自注意力和位置编码</translation>
    </message>
    <message>
        <source>§11.7.1–11.7.4 The Transformer: FFN, add &amp; norm, encoder and decoder blocks</source>
        <translation>§10.7.1–10.7.4 Transformer：基于位置的前馈网络、残差连接和层归一化、编码器块和解码器块</translation>
    </message>
    <message>
        <source>§11.7 The Transformer architecture</source>
        <translation>§10.7 Transformer 架构</translation>
    </message>
    <message>
        <source>§11.5–11.7 Every head of any model: inspect and debug</source>
        <translation>§10.5–10.7 任意模型的每个头：检查与调试</translation>
    </message>
    <message>
        <source>Malformed panel target {target} (expected &apos;module:Class&apos;).</source>
        <translation>面板目标 {target} 格式有误（应为 &apos;module:Class&apos;）。</translation>
    </message>
    <message>
        <source>Could not import {module}: {error}</source>
        <translation>无法导入 {module}：{error}</translation>
    </message>
    <message>
        <source>Module {module} has no class {name}.</source>
        <translation>模块 {module} 中没有类 {name}。</translation>
    </message>
    <message>
        <source>Model inspector</source>
        <translation>模型检查器</translation>
    </message>
</context>
<context>
    <name>PlotItem</name>
    <message>
        <source>Transforms</source>
        <translation>变换</translation>
    </message>
    <message>
        <source>Downsample</source>
        <translation>降采样</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation>透明度</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>数据点</translation>
    </message>
    <message>
        <source>Plot Options</source>
        <translation>绘图选项</translation>
    </message>
</context>
<context>
    <name>PositionalPanel</name>
    <message>
        <source>p&lt;sub&gt;i, 2j&lt;/sub&gt; = sin(iω&lt;sub&gt;j&lt;/sub&gt;), &amp;nbsp;p&lt;sub&gt;i, 2j+1&lt;/sub&gt; = cos(iω&lt;sub&gt;j&lt;/sub&gt;), &amp;nbsp;ω&lt;sub&gt;j&lt;/sub&gt; = 10000&lt;sup&gt;−2j/d&lt;/sup&gt; &amp;nbsp;&amp;nbsp;|&amp;nbsp;&amp;nbsp; P[i+δ] = M(δ) P[i], &amp;nbsp;M(δ) = blocks [[cos δω&lt;sub&gt;j&lt;/sub&gt;, sin δω&lt;sub&gt;j&lt;/sub&gt;], [−sin δω&lt;sub&gt;j&lt;/sub&gt;, cos δω&lt;sub&gt;j&lt;/sub&gt;]]</source>
        <translation>p&lt;sub&gt;i, 2j&lt;/sub&gt; = sin(iω&lt;sub&gt;j&lt;/sub&gt;)，&amp;nbsp;p&lt;sub&gt;i, 2j+1&lt;/sub&gt; = cos(iω&lt;sub&gt;j&lt;/sub&gt;)，&amp;nbsp;ω&lt;sub&gt;j&lt;/sub&gt; = 10000&lt;sup&gt;−2j/d&lt;/sup&gt; &amp;nbsp;&amp;nbsp;|&amp;nbsp;&amp;nbsp; P[i+δ] = M(δ) P[i]，&amp;nbsp;M(δ) 由分块 [[cos δω&lt;sub&gt;j&lt;/sub&gt;, sin δω&lt;sub&gt;j&lt;/sub&gt;], [−sin δω&lt;sub&gt;j&lt;/sub&gt;, cos δω&lt;sub&gt;j&lt;/sub&gt;]] 组成</translation>
    </message>
    <message>
        <source>Self-attention treats its input as a set, so the Transformer adds a position signal to each token: row i of P. Each pair of columns is a sine and a cosine of the position at its own frequency, fast on the left and slower to the right, much like the bits of a binary counter, where the lowest bit flips every step and higher bits flip ever more slowly. Because every column pair turns by a fixed angle per step, moving δ positions is the same rotation M(δ) wherever you start: P[i+δ] = M(δ)P[i] for every i, which lets attention pick up relative positions. P Pᵀ shows that nearby positions look alike and the likeness fades with distance.</source>
        <translation>自注意力把输入当作集合，所以 Transformer 给每个词元加上一个位置信号：P 的第 i 行。每两列是位置的正弦和余弦，各有自己的频率，左边快、越往右越慢，很像二进制计数器的各位：最低位每步翻转一次，越高的位翻转得越慢。因为每对列每走一步都转过固定的角度，所以无论从哪里出发，移动 δ 个位置都是同一个旋转 M(δ)：对每个 i 都有 P[i+δ] = M(δ)P[i]，注意力因此能捕捉相对位置信息。P Pᵀ 表明相近的位置彼此相似，相似度随距离增大而减弱。</translation>
    </message>
    <message>
        <source>encoding_dim d: number of columns of P</source>
        <translation>encoding_dim d：P 的列数</translation>
    </message>
    <message>
        <source>num_steps: number of positions (rows of P)</source>
        <translation>num_steps：位置个数（P 的行数）</translation>
    </message>
    <message>
        <source>first column drawn as a curve</source>
        <translation>画成曲线的第一列</translation>
    </message>
    <message>
        <source>last column drawn as a curve (at most {count})</source>
        <translation>画成曲线的最后一列（最多 {count} 列）</translation>
    </message>
    <message>
        <source>offset δ (i + δ stays a row of P)</source>
        <translation>偏移 δ（i + δ 须仍是 P 的一行）</translation>
    </message>
    <message>
        <source>position i whose encoding is shifted by δ</source>
        <translation>要把编码平移 δ 的位置 i</translation>
    </message>
    <message>
        <source>to</source>
        <translation>到</translation>
    </message>
    <message>
        <source>Encoding</source>
        <translation>编码</translation>
    </message>
    <message>
        <source>columns</source>
        <translation>列</translation>
    </message>
    <message>
        <source>offset δ</source>
        <translation>偏移 δ</translation>
    </message>
    <message>
        <source>row i</source>
        <translation>行 i</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>位置 i</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>columns of P</source>
        <translation>P 的列</translation>
    </message>
    <message>
        <source>similarity P Pᵀ</source>
        <translation>相似度 P Pᵀ</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>The encoding P</source>
        <translation>位置编码 P</translation>
    </message>
    <message>
        <source>Relative positions</source>
        <translation>相对位置</translation>
    </message>
    <message>
        <source>col {index}</source>
        <translation>第 {index} 列</translation>
    </message>
    <message>
        <source>bits of i</source>
        <translation>i 的二进制位</translation>
    </message>
    <message>
        <source>M(δ)P[i]: not available</source>
        <translation>M(δ)P[i]：不可用</translation>
    </message>
    <message>
        <source>M(δ) needs an even encoding_dim (got {dim}): the last sine column has no cosine partner to rotate with.</source>
        <translation>M(δ) 要求 encoding_dim 为偶数（现在是 {dim}）：最后一个正弦列没有与之配对旋转的余弦列。</translation>
    </message>
    <message>
        <source>row i = {row} and i + δ = {target} must both lie in 0..{last}</source>
        <translation>行 i = {row} 和 i + δ = {target} 都必须在 0..{last} 之内</translation>
    </message>
    <message>
        <source>max |P[i+δ] − M(δ)P[i]| over all i: {error:.2e}</source>
        <translation>所有 i 上的最大 |P[i+δ] − M(δ)P[i]|：{error:.2e}</translation>
    </message>
    <message>
        <source>Columns of P</source>
        <translation>P 的列</translation>
    </message>
    <message>
        <source>Binary analogy</source>
        <translation>二进制类比</translation>
    </message>
    <message>
        <source>Offset matrix M(δ)</source>
        <translation>偏移矩阵 M(δ)</translation>
    </message>
    <message>
        <source>Offset check</source>
        <translation>偏移验证</translation>
    </message>
    <message>
        <source>Similarity P Pᵀ</source>
        <translation>相似度 P Pᵀ</translation>
    </message>
</context>
<context>
    <name>RunFeed</name>
    <message>
        <source>Could not read that run&apos;s losses: {error}</source>
        <translation>无法读取该训练记录的损失：{error}</translation>
    </message>
    <message>
        <source>The run {name} has no losses yet.</source>
        <translation>训练记录 {name} 还没有损失记录。</translation>
    </message>
</context>
<context>
    <name>RunProgress</name>
    <message>
        <source>epoch {epoch}, per token</source>
        <translation>第 {epoch} 轮，每个词元</translation>
    </message>
    <message>
        <source>epoch {epoch} so far, per token</source>
        <translation>第 {epoch} 轮至今，每个词元</translation>
    </message>
    <message>
        <source>replay at {speed}×</source>
        <translation>回放 {speed}×</translation>
    </message>
</context>
<context>
    <name>ScalingSection</name>
    <message>
        <source>size d of the query and key vectors</source>
        <translation>查询和键向量的长度 d</translation>
    </message>
    <message>
        <source>number of keys each query&apos;s softmax runs over</source>
        <translation>每个查询做 softmax 时涉及的键的个数</translation>
    </message>
    <message>
        <source>Why divide by √d?</source>
        <translation>为什么要除以 √d？</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>raw q·k</source>
        <translation>原始 q·k</translation>
    </message>
    <message>
        <source>scaled q·k/√d</source>
        <translation>缩放后 q·k/√d</translation>
    </message>
    <message>
        <source>entropy per query</source>
        <translation>每个查询的熵</translation>
    </message>
    <message>
        <source>entropy vs d</source>
        <translation>熵随 d 的变化</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>熵（奈特）</translation>
    </message>
    <message>
        <source>raw</source>
        <translation>原始</translation>
    </message>
    <message>
        <source>scaled</source>
        <translation>缩放后</translation>
    </message>
    <message>
        <source>ln K (uniform)</source>
        <translation>ln K（均匀分布）</translation>
    </message>
    <message>
        <source>mean entropy (nats)</source>
        <translation>平均熵（奈特）</translation>
    </message>
    <message>
        <source>raw q·k (var {var:.1f})</source>
        <translation>原始 q·k（方差 {var:.1f}）</translation>
    </message>
    <message>
        <source>q·k/√d (var {var:.2f})</source>
        <translation>q·k/√d（方差 {var:.2f}）</translation>
    </message>
    <message>
        <source>Var(q·k) = &lt;b&gt;{raw_var:.1f}&lt;/b&gt; ≈ d = {dim}&lt;br&gt;Var(q·k/√d) = &lt;b&gt;{scaled_var:.2f}&lt;/b&gt; ≈ 1&lt;br&gt;softmax entropy over {keys} keys:&lt;br&gt;&amp;nbsp; raw &lt;b&gt;{raw:.2f}&lt;/b&gt;, scaled &lt;b&gt;{scaled:.2f}&lt;/b&gt; (uniform {uniform:.2f}) nats</source>
        <translation>Var(q·k) = &lt;b&gt;{raw_var:.1f}&lt;/b&gt; ≈ d = {dim}&lt;br&gt;Var(q·k/√d) = &lt;b&gt;{scaled_var:.2f}&lt;/b&gt; ≈ 1&lt;br&gt;{keys} 个键上的 softmax 熵：&lt;br&gt;&amp;nbsp; 原始 &lt;b&gt;{raw:.2f}&lt;/b&gt;，缩放后 &lt;b&gt;{scaled:.2f}&lt;/b&gt;（均匀分布 {uniform:.2f}）奈特</translation>
    </message>
    <message>
        <source>Raw dot products</source>
        <translation>原始点积</translation>
    </message>
    <message>
        <source>Scaled dot products</source>
        <translation>缩放后的点积</translation>
    </message>
    <message>
        <source>Entropy per query</source>
        <translation>每个查询的熵</translation>
    </message>
    <message>
        <source>Entropy vs d</source>
        <translation>熵随 d 的变化</translation>
    </message>
</context>
<context>
    <name>ScoringPanel</name>
    <message>
        <source>no mask</source>
        <translation>不掩蔽</translation>
    </message>
    <message>
        <source>valid length per sequence (1-D)</source>
        <translation>每个序列一个有效长度（1 维）</translation>
    </message>
    <message>
        <source>valid lengths per query (2-D)</source>
        <translation>每个查询一个有效长度（2 维）</translation>
    </message>
    <message>
        <source>attention weights</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>raw scores</source>
        <translation>原始评分</translation>
    </message>
    <message>
        <source>additive: a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) = &lt;b&gt;w&lt;/b&gt;&lt;sub&gt;v&lt;/sub&gt;&lt;sup&gt;⊤&lt;/sup&gt; tanh(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;q&lt;/sub&gt;&lt;b&gt;q&lt;/b&gt; + &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;b&gt;k&lt;/b&gt;) &amp;nbsp;&amp;nbsp;|&amp;nbsp;&amp;nbsp; scaled dot product: a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) = &lt;b&gt;q&lt;/b&gt;&lt;sup&gt;⊤&lt;/sup&gt;&lt;b&gt;k&lt;/b&gt; / √d &amp;nbsp;→&amp;nbsp; softmax(&lt;b&gt;QK&lt;/b&gt;&lt;sup&gt;⊤&lt;/sup&gt;/√d)&lt;b&gt;V&lt;/b&gt;</source>
        <translation>加性注意力：a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) = &lt;b&gt;w&lt;/b&gt;&lt;sub&gt;v&lt;/sub&gt;&lt;sup&gt;⊤&lt;/sup&gt; tanh(&lt;b&gt;W&lt;/b&gt;&lt;sub&gt;q&lt;/sub&gt;&lt;b&gt;q&lt;/b&gt; + &lt;b&gt;W&lt;/b&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;b&gt;k&lt;/b&gt;) &amp;nbsp;&amp;nbsp;|&amp;nbsp;&amp;nbsp; 缩放点积注意力：a(&lt;b&gt;q&lt;/b&gt;, &lt;b&gt;k&lt;/b&gt;) = &lt;b&gt;q&lt;/b&gt;&lt;sup&gt;⊤&lt;/sup&gt;&lt;b&gt;k&lt;/b&gt; / √d &amp;nbsp;→&amp;nbsp; softmax(&lt;b&gt;QK&lt;/b&gt;&lt;sup&gt;⊤&lt;/sup&gt;/√d)&lt;b&gt;V&lt;/b&gt;</translation>
    </message>
    <message>
        <source>An attention score says how well a query matches a key; a softmax over the keys turns the scores into weights that sum to one, and the output is the weighted average of the values. The additive scorer learns a small one-layer network and works even when queries and keys differ in size; the dot product needs equal sizes but is a single matrix product. Masking (valid lengths) hides padding keys: their scores are pushed to −∞ before the softmax, so they get weight exactly 0 (hatched cells). The second tab shows why the dot product is divided by √d: without it the scores spread out as d grows and the softmax collapses onto one key.</source>
        <translation>注意力评分衡量查询与键的匹配程度；对键做 softmax 把评分变成和为 1 的权重，输出就是值的加权平均。加性注意力学习一个小的单层网络，查询和键的长度不同时也能用；点积要求长度相同，但只需一次矩阵乘法。掩蔽（有效长度）把填充的键遮住：它们的评分在 softmax 之前被设为 −∞，所以权重恰好为 0（带斜线的格子）。第二个标签页说明为什么点积要除以 √d：不除的话，评分随 d 增大而越来越分散，softmax 会塌缩到一个键上。</translation>
    </message>
    <message>
        <source>number of sequences in the batch</source>
        <translation>批量中的序列数</translation>
    </message>
    <message>
        <source>which sequence of the batch the heatmaps show</source>
        <translation>热图显示批量中的哪个序列</translation>
    </message>
    <message>
        <source>number of queries Q</source>
        <translation>查询个数 Q</translation>
    </message>
    <message>
        <source>number of keys (and values) K</source>
        <translation>键（和值）的个数 K</translation>
    </message>
    <message>
        <source>size d of queries and keys</source>
        <translation>查询和键的长度 d</translation>
    </message>
    <message>
        <source>hidden size h of the additive scorer</source>
        <translation>加性注意力的隐藏单元数 h</translation>
    </message>
    <message>
        <source>random seed for Q, K, V and the additive weights</source>
        <translation>Q、K、V 和加性注意力权重的随机种子</translation>
    </message>
    <message>
        <source>draw the weights or the raw scores</source>
        <translation>画权重还是原始评分</translation>
    </message>
    <message>
        <source>how keys are masked</source>
        <translation>如何掩蔽键</translation>
    </message>
    <message>
        <source>valid keys of sequence {index}</source>
        <translation>序列 {index} 的有效键个数</translation>
    </message>
    <message>
        <source>valid keys for each query of sequence {index}, e.g. &apos;1 2 3 4&apos;</source>
        <translation>序列 {index} 中每个查询的有效键个数，例如 &apos;1 2 3 4&apos;</translation>
    </message>
    <message>
        <source>Queries, keys, values</source>
        <translation>查询、键、值</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批量大小</translation>
    </message>
    <message>
        <source>show sequence</source>
        <translation>显示序列</translation>
    </message>
    <message>
        <source>queries Q</source>
        <translation>查询 Q</translation>
    </message>
    <message>
        <source>keys K</source>
        <translation>键 K</translation>
    </message>
    <message>
        <source>size d</source>
        <translation>长度 d</translation>
    </message>
    <message>
        <source>hidden h (additive)</source>
        <translation>隐藏单元数 h（加性）</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Masking</source>
        <translation>掩蔽</translation>
    </message>
    <message>
        <source>sequence {index}</source>
        <translation>序列 {index}</translation>
    </message>
    <message>
        <source>Additive vs scaled dot product</source>
        <translation>加性注意力与缩放点积注意力</translation>
    </message>
    <message>
        <source>Why divide by √d?</source>
        <translation>为什么要除以 √d？</translation>
    </message>
    <message>
        <source>sequence {index}: {error}</source>
        <translation>序列 {index}：{error}</translation>
    </message>
    <message>
        <source>additive scores</source>
        <translation>加性注意力评分</translation>
    </message>
    <message>
        <source>scaled dot-product scores</source>
        <translation>缩放点积注意力评分</translation>
    </message>
    <message>
        <source>additive weights</source>
        <translation>加性注意力权重</translation>
    </message>
    <message>
        <source>scaled dot-product weights</source>
        <translation>缩放点积注意力权重</translation>
    </message>
    <message>
        <source>q{row}: additive [{additive}]  ·  dot product [{dot}]</source>
        <translation>q{row}：加性 [{additive}]  ·  点积 [{dot}]</translation>
    </message>
    <message>
        <source>Scaling demo: {message}</source>
        <translation>缩放演示：{message}</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
</context>
<context>
    <name>ShellMenus</name>
    <message>
        <source>This panel has no plot to export.</source>
        <translation>这个面板没有可导出的图。</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
</context>
<context>
    <name>StageNames</name>
    <message>
        <source>embedding + P</source>
        <translation>嵌入 + P</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>masked self-attention</source>
        <translation>掩蔽自注意力</translation>
    </message>
    <message>
        <source>enc–dec attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>block input</source>
        <translation>块的输入</translation>
    </message>
    <message>
        <source>add &amp; norm</source>
        <translation>残差连接和层归一化</translation>
    </message>
    <message>
        <source>add (residual)</source>
        <translation>相加（残差连接）</translation>
    </message>
    <message>
        <source>layer norm</source>
        <translation>层归一化</translation>
    </message>
    <message>
        <source>embedding × √d + positional encoding</source>
        <translation>嵌入 × √d + 位置编码</translation>
    </message>
    <message>
        <source>multi-head self-attention</source>
        <translation>多头自注意力</translation>
    </message>
    <message>
        <source>masked multi-head self-attention</source>
        <translation>掩蔽多头自注意力</translation>
    </message>
    <message>
        <source>encoder–decoder attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>position-wise FFN</source>
        <translation>基于位置的前馈网络</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>encoder output</source>
        <translation>编码器的输出</translation>
    </message>
    <message>
        <source>embedding × √d</source>
        <translation>嵌入 × √d</translation>
    </message>
    <message>
        <source>positions P</source>
        <translation>位置编码 P</translation>
    </message>
    <message>
        <source>block {number} output</source>
        <translation>块 {number} 的输出</translation>
    </message>
</context>
<context>
    <name>StageView</name>
    <message>
        <source>the block&apos;s input X (the first block: embedding × √d plus the positional encoding)</source>
        <translation>块的输入 X（第一个块：嵌入 × √d 再加位置编码）</translation>
    </message>
    <message>
        <source>softmax(QKᵀ/√d)V per head; queries, keys and values are all projections of X</source>
        <translation>每个头计算 softmax(QKᵀ/√d)V；查询、键和值都是 X 的投影</translation>
    </message>
    <message>
        <source>self-attention (Q, K, V from X) where position i sees positions ≤ i only</source>
        <translation>自注意力（Q、K、V 都来自 X），位置 i 只能看到 ≤ i 的位置</translation>
    </message>
    <message>
        <source>queries from the decoder, keys and values from the encoder output</source>
        <translation>查询来自解码器，键和值来自编码器的输出</translation>
    </message>
    <message>
        <source>LayerNorm(X + sublayer(X)): residual connection, then layer normalization</source>
        <translation>LayerNorm(X&#xa0;+&#xa0;sublayer(X))：先残差连接，再层归一化</translation>
    </message>
    <message>
        <source>layer normalization of the sublayer&apos;s input (Pre-LN)</source>
        <translation>对子层的输入做层归一化（Pre-LN）</translation>
    </message>
    <message>
        <source>X + sublayer(LayerNorm(X)): the residual connection (Pre-LN)</source>
        <translation>X&#xa0;+&#xa0;sublayer(LayerNorm(X))：残差连接（Pre-LN）</translation>
    </message>
    <message>
        <source>Linear → ReLU → Linear applied to every position alike</source>
        <translation>Linear → ReLU → Linear，对每个位置同样应用</translation>
    </message>
    <message>
        <source>Click a box of the diagram.</source>
        <translation>点击图中的一个方框。</translation>
    </message>
    <message>
        <source>this box takes two tensors: the one drawn above the output</source>
        <translation>这个方框有两个输入张量：这里选择画在输出上方的那个</translation>
    </message>
    <message>
        <source>&lt;b&gt;{box}&lt;/b&gt; ({where}): {what}.&lt;br&gt;in: {inputs} &amp;nbsp;→&amp;nbsp; out: {shape}</source>
        <translation>&lt;b&gt;{box}&lt;/b&gt;（{where}）：{what}。&lt;br&gt;输入：{inputs} &amp;nbsp;→&amp;nbsp; 输出：{shape}</translation>
    </message>
    <message>
        <source>in: {name} {shape}</source>
        <translation>输入：{name} {shape}</translation>
    </message>
    <message>
        <source>out</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>in: {name}</source>
        <translation>输入：{name}</translation>
    </message>
</context>
<context>
    <name>StepAttentionMap</name>
    <message>
        <source>prompt and output so far</source>
        <translation>提示文本与目前的输出</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>layer · head</source>
        <translation>层 · 头</translation>
    </message>
    <message>
        <source>“{t}” has no attention row (the start token)</source>
        <translation>“{t}”没有注意力行（起始词元）</translation>
    </message>
    <message>
        <source>step {n}: “{t}” · self-attention over the prompt and the tokens before it</source>
        <translation>第 {n} 步：“{t}” · 在提示文本和它之前的词元上的自注意力</translation>
    </message>
    <message>
        <source>step {n}: “{t}” · cross-attention over the source</source>
        <translation>第 {n} 步：“{t}” · 在源上的编码器-解码器注意力</translation>
    </message>
    <message>
        <source>p(“{t}”) = {p:.3f} · most probable: {ranked}</source>
        <translation>p(“{t}”) = {p:.3f} · 最可能的词元：{ranked}</translation>
    </message>
</context>
<context>
    <name>StepAttentionViews</name>
    <message>
        <source>The layer whose heads the token lines overlay</source>
        <translation>词元连线叠加显示其各个头的那一层</translation>
    </message>
    <message>
        <source>layer {number}</source>
        <translation>第 {number} 层</translation>
    </message>
</context>
<context>
    <name>StudioBody</name>
    <message>
        <source>Start training (or open a saved model) to see its loss here. No time to train? Model → Replay the demo run.</source>
        <translation>开始训练（或打开已保存的模型），在这里查看损失。没时间训练？模型 → 回放演示训练记录。</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Attention detail</source>
        <translation>注意力细节</translation>
    </message>
    <message>
        <source>Translate</source>
        <translation>翻译</translation>
    </message>
</context>
<context>
    <name>StudioPanel</name>
    <message>
        <source>softmax(&lt;i&gt;QK&lt;/i&gt;&lt;sup&gt;T&lt;/sup&gt;/√&lt;i&gt;d&lt;/i&gt;)&lt;i&gt;V&lt;/i&gt; in every head of every layer: encoder self-attention, masked decoder self-attention, encoder–decoder attention</source>
        <translation>每一层的每个头都计算 softmax(&lt;i&gt;QK&lt;/i&gt;&lt;sup&gt;T&lt;/sup&gt;/√&lt;i&gt;d&lt;/i&gt;)&lt;i&gt;V&lt;/i&gt;：编码器自注意力、解码器掩蔽自注意力、编码器-解码器注意力</translation>
    </message>
    <message>
        <source>Train the Transformer of &lt;i&gt;Dive into Deep Learning&lt;/i&gt; §11.7 on English–French pairs or a synthetic task. The attention of a fixed &lt;b&gt;probe pair&lt;/b&gt; is snapshotted every few steps: rows of the grid are layers, columns heads. Click a thumbnail for a large view, drag the &lt;b&gt;history&lt;/b&gt; slider (or click the loss curve) to replay how each head learned. Pause to translate with the model as it is.</source>
        <translation>在英语-法语句子对或合成任务上训练《动手学深度学习》§10.7 的 Transformer。每隔几步对一个固定的&lt;b&gt;探针句子对&lt;/b&gt;的注意力做一次快照：网格的行是层，列是头。点击缩略图可放大查看，拖动&lt;b&gt;历史&lt;/b&gt;滑块（或点击损失曲线）可回放每个头的学习过程。暂停后即可用当前的模型做翻译。</translation>
    </message>
    <message>
        <source>Cannot start: {error}</source>
        <translation>无法开始：{error}</translation>
    </message>
    <message>
        <source>Reset the studio</source>
        <translation>重置工作室</translation>
    </message>
    <message>
        <source>Forget the trained model, its loss curves and its attention history?</source>
        <translation>丢弃训练好的模型、它的损失曲线和注意力历史吗？</translation>
    </message>
    <message>
        <source>Stop training before choosing another dataset.</source>
        <translation>请先停止训练，再选择其他数据集。</translation>
    </message>
    <message>
        <source>The Transformer studio is training (epoch {epoch} of {epochs}); closing stops it and loses the unsaved model.</source>
        <translation>Transformer 工作室正在训练（第 {epoch} 轮，共 {epochs} 轮）；关闭将停止训练，未保存的模型会丢失。</translation>
    </message>
    <message>
        <source>The Transformer studio is training; closing stops it and loses the unsaved model.</source>
        <translation>Transformer 工作室正在训练；关闭将停止训练，未保存的模型会丢失。</translation>
    </message>
    <message>
        <source>Loss curve</source>
        <translation>损失曲线</translation>
    </message>
    <message>
        <source>Attention grid</source>
        <translation>注意力网格</translation>
    </message>
</context>
<context>
    <name>StudioState</name>
    <message>
        <source>Still loading {source}; start when it is ready.</source>
        <translation>仍在加载 {source}；加载完成后再开始。</translation>
    </message>
    <message>
        <source>Choose a data source first.</source>
        <translation>请先选择数据源。</translation>
    </message>
    <message>
        <source>Training is running.</source>
        <translation>训练正在进行。</translation>
    </message>
    <message>
        <source>Cannot start: {error}</source>
        <translation>无法开始：{error}</translation>
    </message>
    <message>
        <source>Starting the training process…</source>
        <translation>正在启动训练进程…</translation>
    </message>
    <message>
        <source>Paused: the model is being handed over…</source>
        <translation>已暂停：正在传回模型…</translation>
    </message>
    <message>
        <source>Training resumed.</source>
        <translation>训练已继续。</translation>
    </message>
    <message>
        <source>Settings change only while a run trains here.</source>
        <translation>只有在此处训练时才能修改设置。</translation>
    </message>
    <message>
        <source>Cannot change the settings: {error}</source>
        <translation>无法修改设置：{error}</translation>
    </message>
    <message>
        <source>The new settings apply from the next step.</source>
        <translation>新设置从下一步起生效。</translation>
    </message>
    <message>
        <source>Reset.</source>
        <translation>已重置。</translation>
    </message>
    <message>
        <source>Stop training before opening a run.</source>
        <translation>请先停止训练，再打开训练记录。</translation>
    </message>
    <message>
        <source>Could not open the run: {error}</source>
        <translation>无法打开训练记录：{error}</translation>
    </message>
    <message>
        <source>Following the run {name}: new steps appear as they are written.</source>
        <translation>正在跟踪训练记录 {name}：新的步骤写入后即会显示。</translation>
    </message>
    <message>
        <source>Stop training before opening a model.</source>
        <translation>请先停止训练，再打开模型。</translation>
    </message>
    <message>
        <source>Epoch {epoch}: {shown} (mean BLEU {bleu:.3f})</source>
        <translation>第 {epoch} 轮：{shown}（平均 BLEU {bleu:.3f}）</translation>
    </message>
    <message>
        <source>Stopped at epoch {epoch}, step {step}: loss {loss:.4f} ({label}), {rate:,.0f} tokens/s on {device}.</source>
        <translation>已在第 {epoch} 轮、第 {step} 步停止：损失 {loss:.4f}（{label}），在 {device} 上每秒 {rate:,.0f} 个词元。</translation>
    </message>
    <message>
        <source>Finished at epoch {epoch}, step {step}: loss {loss:.4f} ({label}), {rate:,.0f} tokens/s on {device}.</source>
        <translation>已在第 {epoch} 轮、第 {step} 步完成：损失 {loss:.4f}（{label}），在 {device} 上每秒 {rate:,.0f} 个词元。</translation>
    </message>
    <message>
        <source>Training stopped: {error}</source>
        <translation>训练已停止：{error}</translation>
    </message>
    <message>
        <source>Training on {device}: {pairs:,} pairs, {steps:,} steps, {parameters:,} parameters. Recording the run in {folder}.</source>
        <translation>在 {device} 上训练：{pairs:,} 个句子对，{steps:,} 步，{parameters:,} 个参数。训练记录保存在 {folder}。</translation>
    </message>
    <message>
        <source>Training on {device}: {pairs:,} pairs, {steps:,} steps, {parameters:,} parameters.</source>
        <translation>在 {device} 上训练：{pairs:,} 个句子对，{steps:,} 步，{parameters:,} 个参数。</translation>
    </message>
    <message>
        <source>paused at step {step} (epoch {epoch})</source>
        <translation>暂停于第 {step} 步（第 {epoch} 轮）</translation>
    </message>
    <message>
        <source>Paused at step {step}: translate or save the model as it is.</source>
        <translation>已暂停于第 {step} 步：可以用当前的模型翻译或保存它。</translation>
    </message>
    <message>
        <source>trained here ({steps} steps, stopped by an error)</source>
        <translation>在此训练（{steps} 步，因出错而停止）</translation>
    </message>
    <message>
        <source>trained here ({steps} steps)</source>
        <translation>在此训练（{steps} 步）</translation>
    </message>
    <message>
        <source>Replaying the run {name} at {speed}× as it was recorded: Pause, Step and Stop work as in training; a pause translates with the model the run kept before it, if any.</source>
        <translation>正在以 {speed}× 速度按录制过程回放训练记录 {name}：暂停、单步和停止的用法与训练时相同；暂停时可用这个训练记录在此之前保存的模型（如果有）做翻译。</translation>
    </message>
    <message>
        <source>Replay stopped at step {step}.</source>
        <translation>回放已停止于第 {step} 步。</translation>
    </message>
    <message>
        <source>Replay paused at step {step}. This run kept no model before this step: its model arrives at the end.</source>
        <translation>回放已暂停于第 {step} 步。这个训练记录在此之前没有保存模型：模型在回放结束时载入。</translation>
    </message>
    <message>
        <source>Replay paused at step {step}: translate with the model as it was after epoch {epoch}.</source>
        <translation>回放已暂停于第 {step} 步：可用第 {epoch} 轮结束时的模型做翻译。</translation>
    </message>
    <message numerus="yes">
        <source>Stopped following {name}; %n damaged part(s) were skipped: {problem}</source>
        <translation>
            <numerusform>已停止跟踪 {name}；跳过了 %n 个损坏的部分：{problem}</numerusform>
        </translation>
    </message>
    <message>
        <source>The probe pair cannot be shown with this model: {error}</source>
        <translation>无法用这个模型显示探针句子对：{error}</translation>
    </message>
    <message>
        <source>Model: {origin}. Translate with it in the Translate tab.</source>
        <translation>模型：{origin}。可以在“翻译”标签页中用它翻译。</translation>
    </message>
</context>
<context>
    <name>Timelapse</name>
    <message>
        <source>The Transformer studio has no attention history yet: train a model there (or open one), then export its time-lapse.</source>
        <translation>Transformer 工作室还没有注意力历史：先在那里训练（或打开）一个模型，再导出它的延时动画。</translation>
    </message>
    <message>
        <source>Cannot write {name}: choose a .gif, .png or (with imageio-ffmpeg) .mp4 file.</source>
        <translation>无法写入 {name}：请选择 .gif、.png 或（装有 imageio-ffmpeg 时）.mp4 文件。</translation>
    </message>
    <message>
        <source>Drawing the time-lapse: frame {done} of {total}…</source>
        <translation>正在绘制延时动画：第 {done} 帧，共 {total} 帧…</translation>
    </message>
    <message>
        <source>Encoding the time-lapse…</source>
        <translation>正在编码延时动画…</translation>
    </message>
    <message>
        <source>Wrote the time-lapse {path}.</source>
        <translation>已写入延时动画 {path}。</translation>
    </message>
    <message>
        <source>Animated GIF</source>
        <translation>GIF 动画</translation>
    </message>
    <message>
        <source>MP4 video</source>
        <translation>MP4 视频</translation>
    </message>
    <message>
        <source>PNG frames</source>
        <translation>PNG 帧序列</translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>Decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <source>Encoder–decoder (cross) attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>{map}, layer {layer}, head {head}</source>
        <translation>{map}，第 {layer} 层，头 {head}</translation>
    </message>
    <message>
        <source>{map}: every head (rows are layers, columns heads)</source>
        <translation>{map}：所有头（行为层，列为头）</translation>
    </message>
    <message>
        <source>Step {step}, epoch {epoch}: this step&apos;s loss {loss:.3f} (per token)</source>
        <translation>第 {step} 步，第 {epoch} 轮：本步损失 {loss:.3f}（每个词元）</translation>
    </message>
    <message>
        <source>Step {step}, epoch {epoch}</source>
        <translation>第 {step} 步，第 {epoch} 轮</translation>
    </message>
    <message>
        <source>Training loss (per token)</source>
        <translation>训练损失（每个词元）</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
</context>
<context>
    <name>TimelapseDialog</name>
    <message>
        <source>Export training time-lapse</source>
        <translation>导出训练延时动画</translation>
    </message>
    <message>
        <source>At most this many snapshots, evenly spread over the run (first and last kept)</source>
        <translation>快照数的上限；快照均匀分布在整个训练过程中（保留第一个和最后一个）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Frames (at most)</source>
        <translation>帧数（最多）</translation>
    </message>
    <message>
        <source>Frames per second</source>
        <translation>每秒帧数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Every head (a grid)</source>
        <translation>所有头（网格）</translation>
    </message>
    <message>
        <source>Layer {layer}, head {head}</source>
        <translation>第 {layer} 层，头 {head}</translation>
    </message>
    <message>
        <source>Choose a file ending in one of {names}.</source>
        <translation>请选择以 {names} 之一结尾的文件。</translation>
    </message>
    <message>
        <source>The folder {folder} does not exist.</source>
        <translation>文件夹 {folder} 不存在。</translation>
    </message>
</context>
<context>
    <name>TimelapseJob</name>
    <message>
        <source>Could not write the time-lapse: {error}</source>
        <translation>无法写入延时动画：{error}</translation>
    </message>
</context>
<context>
    <name>TokenLinesView</name>
    <message>
        <source>Heads:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>hide lines below</source>
        <translation>隐藏权重低于此值的连线</translation>
    </message>
    <message>
        <source>Lines of smaller weights are not drawn, so that long texts stay readable; hover a token to see its lines alone</source>
        <translation>不画权重更小的连线，长文本也能看清；鼠标悬停在词元上只看它的连线</translation>
    </message>
    <message>
        <source>There is no attention map to export yet.</source>
        <translation>还没有可导出的注意力图。</translation>
    </message>
    <message>
        <source>The token-line view is exported as SVG or PNG, not {format}.</source>
        <translation>词元连线只能导出为 SVG 或 PNG，不能导出为 {format}。</translation>
    </message>
    <message>
        <source>Attention as lines between tokens</source>
        <translation>以词元间连线表示的注意力</translation>
    </message>
    <message>
        <source>Could not write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>TrainingControls</name>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Train a fresh model with the settings above</source>
        <translation>按上面的设置训练一个新模型</translation>
    </message>
    <message>
        <source>Pause training (the model can then be inspected and used to translate)</source>
        <translation>暂停训练（之后可以检查模型并用它翻译）</translation>
    </message>
    <message>
        <source>While paused: train on exactly one more batch</source>
        <translation>暂停时：再训练恰好一个批量</translation>
    </message>
    <message>
        <source>End training; the model trained so far is kept</source>
        <translation>结束训练；保留目前训练好的模型</translation>
    </message>
    <message>
        <source>Forget the model, the loss curves and the attention history</source>
        <translation>丢弃模型、损失曲线和注意力历史</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>尚未开始</translation>
    </message>
    <message>
        <source>Replay speed</source>
        <translation>回放速度</translation>
    </message>
    <message>
        <source>Recorded seconds per second: the replay shows the run as it was trained, this many times as fast</source>
        <translation>回放速度：每秒回放的录制秒数，即按训练时的过程展示这个训练记录的加速倍数</translation>
    </message>
    <message>
        <source>Starting the training process…</source>
        <translation>正在启动训练进程…</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Stop following</source>
        <translation>停止跟踪</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · paused at step {step}</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 暂停于第 {step} 步</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · stopping at step {step}</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 正在第 {step} 步停止</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · finished, {rate:,.0f} tokens/s</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 已完成，每秒 {rate:,.0f} 个词元</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · stopped at step {step}</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 停止于第 {step} 步</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · ETA {eta} · {rate:,.0f} tokens/s</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 预计剩余 {eta} · 每秒 {rate:,.0f} 个词元</translation>
    </message>
    <message>
        <source>epoch {epoch}/{epochs} · loss {loss:.4f} ({label}) · {rate:,.0f} tokens/s</source>
        <translation>轮次 {epoch}/{epochs} · 损失 {loss:.4f}（{label}）· 每秒 {rate:,.0f} 个词元</translation>
    </message>
</context>
<context>
    <name>TrainingForm</name>
    <message>
        <source>book (§11.7)</source>
        <translation>书中设置（§10.7）</translation>
    </message>
    <message>
        <source>quick demo</source>
        <translation>快速演示</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>constant (the book&apos;s)</source>
        <translation>恒定（书中设置）</translation>
    </message>
    <message>
        <source>warm-up, then 1/√step (Vaswani et al.)</source>
        <translation>预热后按 1/√步数 衰减（Transformer 原论文）</translation>
    </message>
    <message>
        <source>cosine to a tenth</source>
        <translation>余弦衰减至十分之一</translation>
    </message>
    <message>
        <source>hidden size</source>
        <translation>隐藏单元数</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>FFN hidden size</source>
        <translation>前馈网络隐藏单元数</translation>
    </message>
    <message>
        <source>dropout</source>
        <translation>暂退法（dropout）</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批量大小</translation>
    </message>
    <message>
        <source>time steps (num_steps)</source>
        <translation>时间步数（num_steps）</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>warm-up steps</source>
        <translation>预热步数</translation>
    </message>
    <message>
        <source>epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>gradient clip (0 = off)</source>
        <translation>梯度裁剪（0 = 关闭）</translation>
    </message>
    <message>
        <source>attention snapshot every N steps</source>
        <translation>每 N 步做一次注意力快照</translation>
    </message>
    <message>
        <source>vocabulary min. frequency</source>
        <translation>词表最低词频</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Model and training</source>
        <translation>模型与训练</translation>
    </message>
    <message>
        <source>How the learning rate changes step by step: the book keeps it constant; warm-up then 1/√step peaks at the learning rate after the warm-up steps; cosine falls to a tenth of it by the last step</source>
        <translation>学习率如何逐步变化：书中保持恒定；“预热，然后按 1/√步数 衰减”在预热步数之后达到所设学习率的峰值；余弦调度到最后一步降至其十分之一</translation>
    </message>
    <message>
        <source>preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>learning-rate schedule</source>
        <translation>学习率调度</translation>
    </message>
    <message>
        <source>Pre-LN (norm first)</source>
        <translation>Pre-LN（先归一化）</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>not available here</source>
        <translation>本机不可用</translation>
    </message>
</context>
<context>
    <name>TranslateView</name>
    <message>
        <source>No model yet: train one, or open a saved model (Model → Open…).</source>
        <translation>还没有模型：训练一个，或者打开已保存的模型（模型 → 打开…）。</translation>
    </message>
    <message>
        <source>Translate a sentence to see which input words each output word attended to.</source>
        <translation>翻译一个句子，看看每个输出词关注了哪些输入词。</translation>
    </message>
    <message>
        <source>optional, for BLEU</source>
        <translation>可选，用于计算 BLEU</translation>
    </message>
    <message>
        <source>The expected translation, for BLEU; left empty, the dataset&apos;s own is used when the sentence is in it</source>
        <translation>期望的译文，用于计算 BLEU；留空时，若句子在数据集中，就用数据集自带的译文</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>贪心搜索</translation>
    </message>
    <message>
        <source>beam</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>width </source>
        <translation>宽度 </translation>
    </message>
    <message>
        <source>Translate</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>output tokens</source>
        <translation>输出词元</translation>
    </message>
    <message>
        <source>input tokens</source>
        <translation>输入词元</translation>
    </message>
    <message>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>reference</source>
        <translation>参考译文</translation>
    </message>
    <message>
        <source>decoding</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>cross-attention of</source>
        <translation>编码器-解码器注意力：</translation>
    </message>
    <message>
        <source>Model: {origin}.</source>
        <translation>模型：{origin}。</translation>
    </message>
    <message>
        <source>Replaying a recorded run: pause to translate with the model it kept before that point, if any; its last model arrives at the end.</source>
        <translation>正在回放已录制的训练记录：暂停后可用它在此之前保存的模型（如果有）做翻译；最终的模型在回放结束时载入。</translation>
    </message>
    <message>
        <source>Training… pause or stop to translate with the model as it is.</source>
        <translation>训练中…暂停或停止后即可用当前的模型翻译。</translation>
    </message>
    <message>
        <source>The model of the last step is on its way…</source>
        <translation>最后一步的模型正在传回…</translation>
    </message>
    <message>
        <source>layer {number}</source>
        <translation>第 {number} 层</translation>
    </message>
    <message>
        <source>mean of heads</source>
        <translation>各头的平均</translation>
    </message>
    <message>
        <source>head {number}</source>
        <translation>头 {number}</translation>
    </message>
    <message>
        <source>There is no model to translate with yet.</source>
        <translation>还没有可用于翻译的模型。</translation>
    </message>
    <message>
        <source>&lt;i&gt;(empty)&lt;/i&gt;</source>
        <translation>&lt;i&gt;（空）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Translation:&lt;/b&gt; {text}</source>
        <translation>&lt;b&gt;译文：&lt;/b&gt;{text}</translation>
    </message>
    <message>
        <source>&lt;i&gt;(stopped at the length limit before &amp;lt;eos&amp;gt;)&lt;/i&gt;</source>
        <translation>&lt;i&gt;（在输出 &amp;lt;eos&amp;gt; 之前达到长度上限而停止）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>· &lt;b&gt;BLEU&lt;/b&gt; {score:.3f} &lt;i&gt;(against the reference typed)&lt;/i&gt;</source>
        <translation>· &lt;b&gt;BLEU&lt;/b&gt; {score:.3f} &lt;i&gt;（对照输入的参考译文）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>· &lt;b&gt;BLEU&lt;/b&gt; {score:.3f} &lt;i&gt;(against the dataset&apos;s translation)&lt;/i&gt;</source>
        <translation>· &lt;b&gt;BLEU&lt;/b&gt; {score:.3f} &lt;i&gt;（对照数据集中的译文）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>The model reads at most {count} words: cut off {words}</source>
        <translation>模型最多读取 {count} 个词：截掉了 {words}</translation>
    </message>
    <message>
        <source>Unknown to the model (read as {unk}): {words}</source>
        <translation>模型不认识的词（按 {unk} 处理）：{words}</translation>
    </message>
    <message>
        <source>cross-attention · layer {layer} · mean of heads</source>
        <translation>编码器-解码器注意力 · 第 {layer} 层 · 各头的平均</translation>
    </message>
    <message>
        <source>cross-attention · layer {layer} · head {head}</source>
        <translation>编码器-解码器注意力 · 第 {layer} 层 · 头 {head}</translation>
    </message>
    <message>
        <source>Translation cross-attention</source>
        <translation>翻译的编码器-解码器注意力</translation>
    </message>
</context>
<context>
    <name>ViewBox</name>
    <message>
        <source>ViewBox options</source>
        <translation>视图选项</translation>
    </message>
    <message>
        <source>View All</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>axis</source>
        <translation>轴</translation>
    </message>
    <message>
        <source>Mouse Mode</source>
        <translation>鼠标模式</translation>
    </message>
    <message>
        <source>3 button</source>
        <translation>三键</translation>
    </message>
    <message>
        <source>1 button</source>
        <translation>单键</translation>
    </message>
</context>
</TS>
