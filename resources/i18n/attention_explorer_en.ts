<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>DataBox</name>
    <message numerus="yes">
        <source>{source} · vocabulary {source_tokens} source / {target_tokens} target tokens · %n malformed line(s) skipped (line {lines})</source>
        <translation>
            <numerusform>{source} · vocabulary {source_tokens} source / {target_tokens} target tokens · %n malformed line skipped (line {lines})</numerusform>
            <numerusform>{source} · vocabulary {source_tokens} source / {target_tokens} target tokens · %n malformed lines skipped (line {lines})</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LayerDrawing</name>
    <message numerus="yes">
        <source>CNN (k = {k}, layers: {layers}): x₁ → position {position} in %n hop(s)</source>
        <translation>
            <numerusform>CNN (k = {k}, layers: {layers}): x₁ → position {position} in %n hop</numerusform>
            <numerusform>CNN (k = {k}, layers: {layers}): x₁ → position {position} in %n hops</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{name}: x₁ → position {position} in %n hop(s)</source>
        <translation>
            <numerusform>{name}: x₁ → position {position} in %n hop</numerusform>
            <numerusform>{name}: x₁ → position {position} in %n hops</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StudioState</name>
    <message numerus="yes">
        <source>Stopped following {name}; %n damaged part(s) were skipped: {problem}</source>
        <translation>
            <numerusform>Stopped following {name}; %n damaged part was skipped: {problem}</numerusform>
            <numerusform>Stopped following {name}; %n damaged parts were skipped: {problem}</numerusform>
        </translation>
    </message>
</context>
</TS>
